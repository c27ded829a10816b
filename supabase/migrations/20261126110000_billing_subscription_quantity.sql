-- Seats: a per-seat subscription's quantity (the Stripe subscription item's `quantity`), written
-- with the rest of the row by webhooks, their re-fetches and reconcile. Plans that are not sold
-- per seat have a quantity of 1.
alter table public.billing_subscriptions
  add column quantity integer not null default 1
    constraint billing_subscriptions_quantity_positive check (quantity >= 1);

comment on column public.billing_subscriptions.quantity is 'The subscription item''s quantity at Stripe: the seats of a per-seat plan (Team), 1 otherwise.';
