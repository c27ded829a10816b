-- Limits and counters every BFF replica shares: rate-limit windows, the sign-in throttle's
-- failures, and the clients each canary version was served to or failed for. Unlogged: a crash
-- of the server forgets them (as a restart of one BFF did before), and no write waits on the WAL.
-- Times are the BFF clock's epoch milliseconds, so every replica's statement reads the same way.
create unlogged table public.limit_counters (
  -- What counts ('chat', 'deploy', 'sign-in', …) and whose count it is (a user, an address).
  scope text not null,
  key text not null,
  hits integer not null,
  window_started_at bigint not null,
  last_hit_at bigint not null,
  -- When the count is forgotten: the window's end, or (sliding) the latest hit plus its memory.
  expires_at bigint not null,
  sliding boolean not null,
  primary key (scope, key)
);
comment on table public.limit_counters is 'Rate-limit windows and sign-in failures shared by the BFF replicas; one row per scope and key, rows past expires_at are deleted by the BFFs. Only the BFF''s own connection reads or writes it.';

create index limit_counters_expires_at_idx on public.limit_counters (expires_at);

alter table public.limit_counters enable row level security;
revoke all on table public.limit_counters from anon, authenticated;

create unlogged table public.canary_clients (
  remote text not null,
  version text not null,
  -- `user:<id>` or `visitor:<id>`: who was served the canary.
  subject text not null,
  served_at bigint,
  failed_at bigint,
  primary key (remote, version, subject)
);
comment on table public.canary_clients is 'Clients served each canary version and those that reported an error for it, over the canary window, from every BFF replica. Only the BFF''s own connection reads or writes it.';

create index canary_clients_seen_idx on public.canary_clients (
  (greatest(coalesce(served_at, 0), coalesce(failed_at, 0)))
);

alter table public.canary_clients enable row level security;
revoke all on table public.canary_clients from anon, authenticated;
