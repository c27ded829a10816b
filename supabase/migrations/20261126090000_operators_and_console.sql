-- The operator role and what the operator console reads (docs/decisions/023): who is an operator,
-- a function policies ask, read policies on the registry for operators (so the console's reads
-- run as the user and RLS enforces the role too), the audit log's new columns and kinds, the
-- checks each build passed at publish, the errors per minute behind the console's sparklines, and
-- the BFF replicas' heartbeats.

create table public.operators (
  user_id uuid primary key references auth.users (id) on delete cascade,
  granted_at timestamptz not null default now(),
  -- Who granted it, in words: an operator's email, or the CLI's user (`cli:<name>`).
  granted_by text not null check (char_length(granted_by) between 1 and 200)
);
comment on table public.operators is 'Users who hold the operator role. Granted and revoked only by the BFF''s own connection (the console, the CLI, npm start); no client can write it.';

-- Whether the current user (auth.uid()) is an operator. Security definer, so policies can ask it
-- without a policy on `operators` asking itself.
create function public.is_operator() returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select 1 from public.operators where user_id = (select auth.uid()));
$$;
comment on function public.is_operator() is 'True when the user of this statement (auth.uid()) holds the operator role.';

revoke all on function public.is_operator() from public, anon;
grant execute on function public.is_operator() to authenticated;

alter table public.operators enable row level security;
revoke all on table public.operators from anon, authenticated;
grant select on table public.operators to authenticated;

create policy "Operators can read who the operators are"
  on public.operators for select to authenticated
  using ((select public.is_operator()));

-- The registry: operators read it, nobody writes it but the BFF's own connection.
grant select on table public.remotes to authenticated;
grant select on table public.remote_versions to authenticated;
grant select on table public.remote_channels to authenticated;
grant select on table public.remote_deploy_events to authenticated;
-- Never the hash: a column grant leaves `token_hash` unreadable even to operators.
grant select (id, remote_name, label, created_at, last_used_at, revoked_at)
  on table public.deploy_tokens to authenticated;

create policy "Operators can read the remotes"
  on public.remotes for select to authenticated
  using ((select public.is_operator()));

create policy "Operators can read remote versions"
  on public.remote_versions for select to authenticated
  using ((select public.is_operator()));

create policy "Operators can read remote channels"
  on public.remote_channels for select to authenticated
  using ((select public.is_operator()));

create policy "Operators can read the deploy events"
  on public.remote_deploy_events for select to authenticated
  using ((select public.is_operator()));

create policy "Operators can read deploy tokens"
  on public.deploy_tokens for select to authenticated
  using ((select public.is_operator()));

-- The audit log: how each action arrived, which operator did it, and token and role changes
-- (which concern no remote when a role changes).
alter table public.remote_deploy_events
  add column source text not null default 'token'
    check (source in ('token', 'operator', 'monitor', 'cli')),
  add column operator_id uuid references auth.users (id) on delete set null,
  alter column remote_name drop not null;

update public.remote_deploy_events set source = 'monitor' where kind = 'canary_auto_rolled_back';

alter table public.remote_deploy_events drop constraint remote_deploy_events_kind_check;
alter table public.remote_deploy_events add constraint remote_deploy_events_kind_check check (kind in (
  'published', 'relocated', 'promoted', 'rolled_back',
  'canary_started', 'canary_stopped', 'canary_auto_rolled_back',
  'token_issued', 'token_revoked', 'operator_granted', 'operator_revoked'
));
alter table public.remote_deploy_events add constraint remote_deploy_events_remote_check check (
  remote_name is not null or kind in ('operator_granted', 'operator_revoked')
);

comment on table public.remote_deploy_events is 'The audit log: everything done to the registry (publish, promote, canary, rollback), to deploy tokens and to the operator role, who did it, from where (source) and when; the newest id also tells readers the registry may have changed.';

create index remote_deploy_events_operator_id_idx on public.remote_deploy_events (operator_id);

-- What the registry checked before it registered a build, and who published it.
alter table public.remote_versions
  add column checks jsonb not null default '[]'::jsonb,
  add column published_by text;

-- Error reports per remote version and minute, from every replica: the console's sparklines.
-- Unlogged and swept with the canary window, like canary_clients.
create unlogged table public.remote_error_minutes (
  remote text not null,
  version text not null,
  -- The minute, as epoch milliseconds ÷ 60 000 on the BFF's clock.
  minute bigint not null,
  reports integer not null,
  primary key (remote, version, minute)
);
comment on table public.remote_error_minutes is 'Remote error reports per version and minute, from every BFF replica, kept for the canary window. Only the BFF''s own connection reads or writes it.';

create index remote_error_minutes_minute_idx on public.remote_error_minutes (minute);

alter table public.remote_error_minutes enable row level security;
revoke all on table public.remote_error_minutes from anon, authenticated;

-- Every BFF process says it is alive every few seconds; the console shows who is up.
create unlogged table public.bff_replicas (
  id text primary key,
  started_at timestamptz not null,
  last_seen_at timestamptz not null,
  version text not null,
  -- Set when the process drains: it is gone on purpose, not lost.
  stopped_at timestamptz
);
comment on table public.bff_replicas is 'BFF processes and their latest heartbeat. Only the BFF''s own connection reads or writes it.';

create index bff_replicas_last_seen_at_idx on public.bff_replicas (last_seen_at);

alter table public.bff_replicas enable row level security;
revoke all on table public.bff_replicas from anon, authenticated;
