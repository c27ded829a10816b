-- How long remotes take to show in people's browsers, per version and minute, from every replica:
-- the console's load figures. Unlogged and swept with the canary window, like remote_error_minutes.
create unlogged table public.remote_load_minutes (
  remote text not null,
  version text not null,
  -- The minute, as epoch milliseconds ÷ 60 000 on the BFF's clock.
  minute bigint not null,
  loads integer not null check (loads > 0),
  -- Loads whose entry the browser had started fetching before the loader asked (page hints).
  preloaded integer not null check (preloaded >= 0),
  -- Sums of each stage in milliseconds, for the means.
  entry_ms bigint not null check (entry_ms >= 0),
  expose_ms bigint not null check (expose_ms >= 0),
  mount_ms bigint not null check (mount_ms >= 0),
  -- Loads per bucket of the wait since navigation, by the bucket bounds in
  -- bff/src/modules/console/load-figures.ts (the last bucket is everything above them).
  ready_buckets integer[] not null,
  primary key (remote, version, minute)
);
comment on table public.remote_load_minutes is 'Remote load timings per version and minute, from every BFF replica, kept for the canary window. Only the BFF''s own connection reads or writes it.';

create index remote_load_minutes_minute_idx on public.remote_load_minutes (minute);

alter table public.remote_load_minutes enable row level security;
revoke all on table public.remote_load_minutes from anon, authenticated;
