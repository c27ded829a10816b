-- Billing: each user's Stripe customer, their subscriptions as Stripe last described them, and the
-- ledger of webhook events. Stripe is the source of truth; these rows are its mirror, written only
-- by the BFF's own connection (webhooks, checkout, reconcile). Users may read their own rows.

create table public.billing_customers (
  user_id uuid primary key references auth.users (id) on delete cascade,
  -- Null only inside the transaction that creates the customer at Stripe: the row is inserted
  -- first so that concurrent checkouts of one user wait on its lock and find the customer made.
  stripe_customer_id text unique,
  -- The checkout last started: a second click for the same plan soon after reuses its
  -- idempotency key, so Stripe answers with the same Checkout Session instead of a new one.
  checkout_plan text check (checkout_plan is null or checkout_plan in ('pro', 'team')),
  checkout_idempotency_key text,
  checkout_started_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.billing_customers is 'Each user''s Stripe customer (one per user). Written by the BFF only; users read their own row.';

create table public.billing_subscriptions (
  stripe_subscription_id text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  stripe_customer_id text not null
    references public.billing_customers (stripe_customer_id) on delete cascade,
  -- From the price's lookup_key through the plan catalogue (contracts/src/plans.ts); a price we
  -- do not sell is stored as 'free', which grants nothing.
  plan text not null check (plan in ('free', 'pro', 'team')),
  stripe_price_id text,
  status text not null check (
    status in ('incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'canceled',
      'unpaid', 'paused')
  ),
  current_period_end timestamptz,
  -- When a cancellation takes effect (at the period end, or a chosen date); null when none is due.
  cancel_at timestamptz,
  canceled_at timestamptz,
  stripe_created_at timestamptz not null,
  -- The version marker: Stripe's `created` time of the newest event whose state this row holds.
  -- An event older than this never overwrites the row; one of the same second (Stripe's clock
  -- has one-second steps) makes the BFF re-fetch the subscription instead of guessing.
  version_at timestamptz not null,
  -- When the BFF last wrote this row from Stripe (webhook, re-fetch or reconcile).
  synced_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.billing_subscriptions is 'Stripe subscriptions as the BFF last synced them (webhooks, reconcile). Written by the BFF only; users read their own rows.';

create index billing_subscriptions_user_id_idx on public.billing_subscriptions (user_id);
create index billing_subscriptions_customer_idx on public.billing_subscriptions (stripe_customer_id);

create table public.billing_events (
  -- Stripe's event id: the unique key that turns a redelivery into a no-op. Written in the same
  -- transaction as the event's effects, so an event is either recorded and applied, or neither.
  id text primary key,
  type text not null,
  stripe_created_at timestamptz not null,
  -- The subscription (or other object) the event was about, and whose user it concerned.
  object_id text,
  user_id uuid references auth.users (id) on delete set null,
  received_at timestamptz not null default now(),
  -- Set when the event changed stored state.
  applied_at timestamptz,
  outcome text not null check (
    outcome in ('received', 'applied', 'refetched', 'unchanged', 'stale', 'ignored',
      'unknown_customer', 'invalid')
  )
);
comment on table public.billing_events is 'Ledger of Stripe webhook events received (one row per event id) and what each did. Only the BFF''s own connection reads or writes it.';

create index billing_events_user_id_idx on public.billing_events (user_id);

-- RLS on every table. Users read their own customer and subscription rows; nobody but the BFF's
-- own connection (which bypasses RLS) writes billing state or sees the ledger.
alter table public.billing_customers enable row level security;
alter table public.billing_subscriptions enable row level security;
alter table public.billing_events enable row level security;

create policy "Users can read their own billing customer"
  on public.billing_customers for select to authenticated
  using ((select auth.uid()) = user_id);

create policy "Users can read their own subscriptions"
  on public.billing_subscriptions for select to authenticated
  using ((select auth.uid()) = user_id);

revoke all on table public.billing_customers from anon, authenticated;
revoke all on table public.billing_subscriptions from anon, authenticated;
revoke all on table public.billing_events from anon, authenticated;
grant select on table public.billing_customers to authenticated;
grant select on table public.billing_subscriptions to authenticated;

create trigger billing_customers_set_updated_at
  before update on public.billing_customers
  for each row execute function public.set_updated_at();

create trigger billing_subscriptions_set_updated_at
  before update on public.billing_subscriptions
  for each row execute function public.set_updated_at();
