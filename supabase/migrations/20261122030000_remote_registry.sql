-- The remote registry: which builds of each remote exist, which one each channel serves, who may
-- deploy a remote, and everything that was done. Only the BFF's own connection (service) reads
-- or writes these tables; the API roles see nothing (docs/decisions/009).

create table public.remotes (
  name text primary key check (name ~ '^[a-z][a-z0-9-]{1,31}$'),
  created_at timestamptz not null default now()
);
comment on table public.remotes is 'Remotes (micro-frontends) known to the registry, one row per remote name.';

create table public.deploy_tokens (
  id uuid primary key default gen_random_uuid(),
  remote_name text not null references public.remotes (name) on delete cascade,
  -- sha256 (hex) of the token: a copy of this table cannot be used to deploy.
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  label text not null check (char_length(label) between 1 and 80),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
comment on table public.deploy_tokens is 'Deploy tokens, stored hashed; each one may deploy exactly one remote.';

create index deploy_tokens_remote_name_idx on public.deploy_tokens (remote_name);

create table public.remote_versions (
  remote_name text not null references public.remotes (name) on delete cascade,
  version text not null check (version ~ '^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$'),
  -- The build's tessera-remote.json as registered (with the version it was registered as).
  descriptor jsonb not null,
  -- descriptorDigest(): the build's content without its version label and build time.
  content_sha256 text not null check (content_sha256 ~ '^[0-9a-f]{64}$'),
  -- Public URL of the folder holding the files (…/<name>/<version>); may move, content may not.
  base_url text not null,
  registered_at timestamptz not null default now(),
  registered_by uuid references public.deploy_tokens (id) on delete set null,
  -- When it last became stable, and the stable channel's revision then (a strict order, where
  -- times can tie): previous-good candidates are the versions that once were stable.
  last_stable_at timestamptz,
  last_stable_revision integer,
  -- Rolled back from stable, or its canary failed: never picked as previous good again.
  withdrawn_at timestamptz,
  withdrawn_reason text,
  primary key (remote_name, version)
);
comment on table public.remote_versions is 'Immutable builds of each remote: a name and version always mean the same bytes.';

-- Immutability does not rest on the BFF alone: content columns can never change once written.
create function public.remote_versions_keep_content() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.remote_name is distinct from old.remote_name
    or new.version is distinct from old.version
    or new.content_sha256 is distinct from old.content_sha256
    or new.descriptor is distinct from old.descriptor then
    raise exception 'remote version %@% is immutable: publish a new version instead', old.remote_name, old.version
      using errcode = 'check_violation';
  end if;
  return new;
end;
$$;
comment on function public.remote_versions_keep_content() is 'Trigger: refuses any change to the content of a registered remote version.';

create trigger remote_versions_keep_content
  before update on public.remote_versions
  for each row execute function public.remote_versions_keep_content();

create table public.remote_channels (
  remote_name text not null references public.remotes (name) on delete cascade,
  channel text not null check (channel in ('stable', 'canary')),
  version text,
  -- The canary's share of users; null for stable and for a stopped canary.
  percentage smallint,
  -- Compare-and-swap: every move adds one, and a move names the revision it expects.
  revision integer not null default 0 check (revision >= 0),
  updated_at timestamptz not null default now(),
  primary key (remote_name, channel),
  foreign key (remote_name, version) references public.remote_versions (remote_name, version),
  constraint remote_channels_percentage check (
    (channel = 'stable' and percentage is null)
    or (channel = 'canary' and version is null and percentage is null)
    or (channel = 'canary' and version is not null and percentage between 1 and 100)
  )
);
comment on table public.remote_channels is 'Per remote, the version each channel (stable, canary) serves: pointers moved with compare-and-swap on revision.';

create table public.remote_deploy_events (
  id integer generated always as identity primary key,
  remote_name text not null references public.remotes (name) on delete cascade,
  kind text not null check (kind in (
    'published', 'relocated', 'promoted', 'rolled_back',
    'canary_started', 'canary_stopped', 'canary_auto_rolled_back'
  )),
  -- The version the event is about (the new stable, the canary, the published build).
  version text,
  -- What the channel served before the move.
  from_version text,
  percentage smallint,
  -- A deploy token's label, or the BFF's canary monitor.
  actor text not null,
  token_id uuid references public.deploy_tokens (id) on delete set null,
  details jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now()
);
comment on table public.remote_deploy_events is 'Everything done to the registry (publish, promote, canary, rollback), who did it and when; the newest id also tells readers the registry changed.';

create index remote_deploy_events_remote_name_idx on public.remote_deploy_events (remote_name, id desc);

-- RLS on and no policy for anon or authenticated: the API roles see and change nothing here.
alter table public.remotes enable row level security;
alter table public.deploy_tokens enable row level security;
alter table public.remote_versions enable row level security;
alter table public.remote_channels enable row level security;
alter table public.remote_deploy_events enable row level security;
revoke all on table public.remotes from anon, authenticated;
revoke all on table public.deploy_tokens from anon, authenticated;
revoke all on table public.remote_versions from anon, authenticated;
revoke all on table public.remote_channels from anon, authenticated;
revoke all on table public.remote_deploy_events from anon, authenticated;
