-- Team billing (issue 19, docs/decisions/026): a subscription belongs to a workspace. Null is the
-- buyer's personal workspace (every subscription before this); a team's is bought by one of its
-- owners or admins, and its seats follow the member count. The workspace comes from the
-- subscription's metadata (set by the BFF at checkout) and is written with the rest of the row by
-- webhooks, their re-fetches and reconcile.
alter table public.billing_subscriptions
  add column workspace_id uuid references public.workspaces (id) on delete set null;

comment on column public.billing_subscriptions.workspace_id is 'The team workspace the subscription pays for (its metadata.workspace_id); null: the buyer''s personal workspace.';

create index billing_subscriptions_workspace_id_idx
  on public.billing_subscriptions (workspace_id);

-- Owners and admins read everything of their team's subscription the billing page shows (the
-- buyer keeps reading their own rows through the existing policy).
create policy "Owners and admins can read their workspace's subscriptions"
  on public.billing_subscriptions for select to authenticated
  using (public.workspace_role(workspace_id) in ('owner', 'admin'));

-- Members see no billing details beyond the plan, its status and the seats (the pool they share):
-- this function answers those three for any member, and nothing for anyone else.
create function public.workspace_subscription(workspace uuid)
returns table (plan text, status text, quantity integer, stripe_created_at timestamptz)
language sql
stable
security definer
set search_path = ''
as $$
  select s.plan, s.status, s.quantity, s.stripe_created_at
  from public.billing_subscriptions s
  where s.workspace_id = workspace and public.workspace_role(workspace) is not null;
$$;
comment on function public.workspace_subscription(uuid) is 'The plan, status and seats of a workspace''s subscriptions, for its members only (no other billing detail).';

revoke all on function public.workspace_subscription(uuid) from public, anon;
grant execute on function public.workspace_subscription(uuid) to authenticated;
