-- Workspaces, their members and invitations (issue 19, docs/decisions/024). Every user has one
-- personal workspace (created here for existing users, and by a trigger when a profile is
-- created); team workspaces have owners, admins and members, who join by an emailed invite.
-- Members read their workspace and its member list; only owners and admins read its invites. No
-- client writes any of it: the BFF's own connection does, after the role checks, with row locks.

create table public.workspaces (
  id uuid primary key default gen_random_uuid(),
  name text not null check (char_length(name) between 1 and 80),
  kind text not null check (kind in ('personal', 'team')),
  -- Who created it; for a personal workspace, whose it is. Null once that account is deleted.
  created_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.workspaces is 'Workspaces: each user''s personal one and the team workspaces people share. Written only by the BFF''s own connection.';

-- Exactly one personal workspace per user.
create unique index workspaces_personal_idx on public.workspaces (created_by) where kind = 'personal';
create index workspaces_created_by_idx on public.workspaces (created_by);

create trigger workspaces_set_updated_at
  before update on public.workspaces
  for each row execute function public.set_updated_at();

create table public.workspace_members (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'member')),
  -- Tokens this member may use per month from the workspace's pool; null: no cap of their own.
  monthly_token_cap integer check (monthly_token_cap is null or monthly_token_cap >= 0),
  joined_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
comment on table public.workspace_members is 'Who belongs to which workspace, with which role (owner, admin, member). Written only by the BFF''s own connection.';

create index workspace_members_user_id_idx on public.workspace_members (user_id);

create table public.workspace_invites (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  email text not null check (
    email = lower(email) and char_length(email) between 3 and 320 and email like '%_@_%'
  ),
  role text not null check (role in ('admin', 'member')),
  -- sha256 (hex) of the random token; the token itself is only ever in the emailed link.
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  invited_by uuid references auth.users (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by uuid references auth.users (id) on delete set null,
  declined_at timestamptz,
  revoked_at timestamptz,
  -- The latest resend (a new token and expiry); null until resent.
  resent_at timestamptz,
  -- Emails the mail service accepted for this invite; last_sent_at null: none went out yet.
  sent_count integer not null default 0 check (sent_count >= 0),
  last_sent_at timestamptz,
  constraint workspace_invites_one_outcome
    check (num_nonnulls(accepted_at, declined_at, revoked_at) <= 1)
);
comment on table public.workspace_invites is 'Invitations to a team workspace by email: single use, valid for 7 days, only for the invited address. Written only by the BFF''s own connection; the token hash is readable by nobody.';

-- One pending invite per workspace and address (an expired one is revoked before a new one).
create unique index workspace_invites_pending_idx on public.workspace_invites (workspace_id, email)
  where accepted_at is null and declined_at is null and revoked_at is null;
create index workspace_invites_invited_by_idx on public.workspace_invites (invited_by);
create index workspace_invites_accepted_by_idx on public.workspace_invites (accepted_by);

-- The current workspace of a session; null: the user's personal one.
alter table public.bff_sessions
  add column workspace_id uuid references public.workspaces (id) on delete set null;
comment on column public.bff_sessions.workspace_id is 'The workspace this session works in; null (or one the user left) means their personal workspace.';
create index bff_sessions_workspace_id_idx on public.bff_sessions (workspace_id);

-- The role of the user of this statement (auth.uid()) in a workspace; null for a non-member.
-- Security definer, so policies can ask it without a policy on workspace_members asking itself.
create function public.workspace_role(workspace uuid) returns text
language sql
stable
security definer
set search_path = ''
as $$
  select role from public.workspace_members
  where workspace_id = workspace and user_id = (select auth.uid());
$$;
comment on function public.workspace_role(uuid) is 'The role (owner, admin, member) of the user of this statement in the workspace; null when they are not a member.';

revoke all on function public.workspace_role(uuid) from public, anon;
grant execute on function public.workspace_role(uuid) to authenticated;

-- The user's personal workspace, created with its owner row when missing; its id.
create function tessera_private.ensure_personal_workspace(account uuid) returns uuid
language plpgsql
security definer
set search_path = ''
as $$
declare
  found uuid;
begin
  insert into public.workspaces (name, kind, created_by)
    values ('Personal', 'personal', account)
    on conflict (created_by) where kind = 'personal' do nothing
    returning id into found;
  if found is null then
    select id into found from public.workspaces where created_by = account and kind = 'personal';
  end if;
  insert into public.workspace_members (workspace_id, user_id, role)
    values (found, account, 'owner')
    on conflict (workspace_id, user_id) do nothing;
  return found;
end;
$$;
comment on function tessera_private.ensure_personal_workspace(uuid) is 'Creates the user''s personal workspace (and their owner row) when missing; returns its id.';

revoke all on function tessera_private.ensure_personal_workspace(uuid) from public, anon, authenticated;

-- A profile is created at the first sign-in (as the user): their personal workspace comes with it.
create function tessera_private.profiles_personal_workspace() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  perform tessera_private.ensure_personal_workspace(new.user_id);
  return new;
end;
$$;
comment on function tessera_private.profiles_personal_workspace() is 'Trigger: gives each new profile''s user their personal workspace.';
revoke all on function tessera_private.profiles_personal_workspace() from public, anon, authenticated;

create trigger profiles_personal_workspace
  after insert on public.profiles
  for each row execute function tessera_private.profiles_personal_workspace();

-- A personal workspace goes with its user: when its last member row goes (the account deleted),
-- the workspace goes too.
create function tessera_private.drop_empty_personal_workspace() returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  delete from public.workspaces w
  where w.id = old.workspace_id and w.kind = 'personal'
    and not exists (select 1 from public.workspace_members m where m.workspace_id = w.id);
  return null;
end;
$$;
comment on function tessera_private.drop_empty_personal_workspace() is 'Trigger: deletes a personal workspace once it has no member (its user was deleted).';
revoke all on function tessera_private.drop_empty_personal_workspace() from public, anon, authenticated;

create trigger workspace_members_drop_empty_personal
  after delete on public.workspace_members
  for each row execute function tessera_private.drop_empty_personal_workspace();

-- Every existing user gets their personal workspace now.
select tessera_private.ensure_personal_workspace(id) from auth.users;

-- Row level security: reads by membership and role, no writes for the API roles.
alter table public.workspaces enable row level security;
alter table public.workspace_members enable row level security;
alter table public.workspace_invites enable row level security;
revoke all on table public.workspaces from anon, authenticated;
revoke all on table public.workspace_members from anon, authenticated;
revoke all on table public.workspace_invites from anon, authenticated;
grant select on table public.workspaces to authenticated;
grant select on table public.workspace_members to authenticated;
-- Never the token hash: a column grant leaves it unreadable even to owners.
grant select (
  id, workspace_id, email, role, invited_by, created_at, expires_at, accepted_at, accepted_by,
  declined_at, revoked_at, resent_at, sent_count, last_sent_at
) on table public.workspace_invites to authenticated;

create policy "Members can read their workspaces"
  on public.workspaces for select to authenticated
  using (public.workspace_role(id) is not null);

create policy "Members can read the members of their workspaces"
  on public.workspace_members for select to authenticated
  using (public.workspace_role(workspace_id) is not null);

create policy "Owners and admins can read their workspaces' invites"
  on public.workspace_invites for select to authenticated
  using (public.workspace_role(workspace_id) in ('owner', 'admin'));
