-- The assistant inside workspaces (issue 19, docs/decisions/027): conversations belong to a
-- workspace and can be shared with its members (read-only for them), and a send in a team
-- workspace holds its tokens against the team's monthly pool and the member's own cap, together.

alter table public.assistant_conversations
  -- Null: the author's personal workspace (every conversation made before workspaces existed).
  add column workspace_id uuid references public.workspaces (id) on delete cascade,
  -- Readable (never writable) by the other members of its workspace.
  add column shared boolean not null default false,
  add constraint assistant_conversations_shared_in_workspace
    check (not shared or workspace_id is not null);

-- The list: the author's own conversations in one workspace, and the ones shared with it.
create index assistant_conversations_user_workspace_recent_idx
  on public.assistant_conversations (user_id, workspace_id, updated_at desc, id desc);
create index assistant_conversations_workspace_shared_recent_idx
  on public.assistant_conversations (workspace_id, updated_at desc, id desc)
  where shared;

-- A shared conversation is readable by every member of its workspace; the author's policies
-- (read, update, delete their own) stay as they were, so nobody but the author writes it.
create policy "Members can read conversations shared with their workspace"
  on public.assistant_conversations for select to authenticated
  using (shared and public.workspace_role(workspace_id) is not null);

-- A conversation is created in a workspace its author is a member of (or in their personal one).
drop policy "Users can create their own conversations" on public.assistant_conversations;
create policy "Users can create their own conversations"
  on public.assistant_conversations for insert to authenticated
  with check (
    (select auth.uid()) = user_id
    and (workspace_id is null or public.workspace_role(workspace_id) is not null)
  );

-- Sharing is the author's (the update policy) and only while they are a member of its workspace.
drop policy "Users can update their own conversations" on public.assistant_conversations;
create policy "Users can update their own conversations"
  on public.assistant_conversations for update to authenticated
  using ((select auth.uid()) = user_id)
  with check (
    (select auth.uid()) = user_id
    and (not shared or public.workspace_role(workspace_id) is not null)
  );

grant insert (workspace_id) on table public.assistant_conversations to authenticated;
grant update (shared) on table public.assistant_conversations to authenticated;

create policy "Members can read the messages of conversations shared with their workspace"
  on public.assistant_messages for select to authenticated
  using (
    exists (
      select 1 from public.assistant_conversations conversation
      where conversation.id = conversation_id
        and conversation.shared
        and public.workspace_role(conversation.workspace_id) is not null
    )
  );

-- The team's pool: one row per workspace and month, like assistant_usage per user.
create table public.workspace_usage (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  period_start timestamptz not null,
  used_tokens integer not null default 0 check (used_tokens >= 0),
  reserved_tokens integer not null default 0 check (reserved_tokens >= 0),
  -- The pool (plan tokens × seats) when the last hold was taken.
  limit_tokens integer not null check (limit_tokens >= 0),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, period_start),
  constraint workspace_usage_within_limit check (used_tokens + reserved_tokens <= limit_tokens)
);
comment on table public.workspace_usage is 'Assistant tokens per team workspace and calendar month: the shared pool''s settled and held tokens and its limit. Written only by the BFF''s own connection.';

-- Each member's share of the pool this month, held to their cap when they have one.
create table public.workspace_member_usage (
  workspace_id uuid not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  period_start timestamptz not null,
  used_tokens integer not null default 0 check (used_tokens >= 0),
  reserved_tokens integer not null default 0 check (reserved_tokens >= 0),
  -- The member's cap when their last hold was taken; null: no cap of their own.
  cap_tokens integer check (cap_tokens is null or cap_tokens >= 0),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, user_id, period_start),
  foreign key (workspace_id, period_start)
    references public.workspace_usage (workspace_id, period_start) on delete cascade,
  constraint workspace_member_usage_within_cap
    check (cap_tokens is null or used_tokens + reserved_tokens <= cap_tokens)
);
comment on table public.workspace_member_usage is 'Assistant tokens per member of a team workspace and calendar month, within their cap. Written only by the BFF''s own connection.';
create index workspace_member_usage_user_id_idx on public.workspace_member_usage (user_id);

-- The holds of team answers in flight (assistant_reservations is the personal one's).
create table public.workspace_reservations (
  id uuid primary key,
  workspace_id uuid not null,
  user_id uuid not null,
  period_start timestamptz not null,
  tokens integer not null check (tokens > 0),
  model text not null,
  created_at timestamptz not null default now(),
  foreign key (workspace_id, user_id, period_start)
    references public.workspace_member_usage (workspace_id, user_id, period_start)
    on delete cascade
);
comment on table public.workspace_reservations is 'Tokens held for each team answer in flight, so a settlement applies once and a dead BFF''s holds are swept. Only the BFF''s own connection reads or writes it.';
create index workspace_reservations_created_idx on public.workspace_reservations (created_at);
create index workspace_reservations_workspace_idx
  on public.workspace_reservations (workspace_id, created_at);
create index workspace_reservations_member_idx
  on public.workspace_reservations (workspace_id, user_id, period_start);

-- What was settled, per member, model and day (UTC): the admins' usage page and its CSV.
create table public.workspace_usage_daily (
  workspace_id uuid not null references public.workspaces (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  day date not null,
  model text not null,
  tokens integer not null check (tokens >= 0),
  answers integer not null default 0 check (answers >= 0),
  primary key (workspace_id, day, user_id, model)
);
comment on table public.workspace_usage_daily is 'Settled assistant tokens of a team workspace per member, model and UTC day. Written only by the BFF''s own connection, in the settlement''s statement.';
create index workspace_usage_daily_user_id_idx on public.workspace_usage_daily (user_id);

alter table public.workspace_usage enable row level security;
alter table public.workspace_member_usage enable row level security;
alter table public.workspace_reservations enable row level security;
alter table public.workspace_usage_daily enable row level security;
revoke all on table public.workspace_usage from anon, authenticated;
revoke all on table public.workspace_member_usage from anon, authenticated;
revoke all on table public.workspace_reservations from anon, authenticated;
revoke all on table public.workspace_usage_daily from anon, authenticated;
grant select on table public.workspace_usage to authenticated;
grant select on table public.workspace_member_usage to authenticated;
grant select on table public.workspace_usage_daily to authenticated;

create policy "Members can read their workspace's pool"
  on public.workspace_usage for select to authenticated
  using (public.workspace_role(workspace_id) is not null);

create policy "Members can read their own share of the pool"
  on public.workspace_member_usage for select to authenticated
  using ((select auth.uid()) = user_id and public.workspace_role(workspace_id) is not null);

create policy "Owners and admins can read every member's share of the pool"
  on public.workspace_member_usage for select to authenticated
  using (public.workspace_role(workspace_id) in ('owner', 'admin'));

create policy "Members can read their own daily usage"
  on public.workspace_usage_daily for select to authenticated
  using ((select auth.uid()) = user_id and public.workspace_role(workspace_id) is not null);

create policy "Owners and admins can read every member's daily usage"
  on public.workspace_usage_daily for select to authenticated
  using (public.workspace_role(workspace_id) in ('owner', 'admin'));

-- The hold of a team answer, in one statement: the pool row is locked, then the member's (always
-- in that order, by every function here, so they cannot deadlock), both limits are checked and
-- both counters and the reservation are written, or nothing is. The outcome says which limit
-- refused: 'held', 'pool', 'cap' or 'not_member'.
create function tessera_private.reserve_workspace_tokens(
  hold_id uuid, workspace uuid, member uuid, period timestamptz, pool_limit integer,
  tokens integer, model text
) returns table (
  outcome text, pool_used integer, pool_reserved integer, member_used integer,
  member_reserved integer, member_cap integer
)
language plpgsql
set search_path = ''
as $$
declare
  cap integer;
  pool_row public.workspace_usage;
  member_row public.workspace_member_usage;
begin
  select m.monthly_token_cap into cap from public.workspace_members m
    where m.workspace_id = workspace and m.user_id = member;
  if not found then
    return query select 'not_member', 0, 0, 0, 0, null::integer;
    return;
  end if;
  insert into public.workspace_usage as u (workspace_id, period_start, limit_tokens)
    values (workspace, period, pool_limit) on conflict do nothing;
  select * into pool_row from public.workspace_usage u
    where u.workspace_id = workspace and u.period_start = period for update;
  insert into public.workspace_member_usage as s (workspace_id, user_id, period_start)
    values (workspace, member, period) on conflict do nothing;
  select * into member_row from public.workspace_member_usage s
    where s.workspace_id = workspace and s.user_id = member and s.period_start = period
    for update;
  if pool_row.used_tokens + pool_row.reserved_tokens + tokens > pool_limit then
    return query select 'pool', pool_row.used_tokens, pool_row.reserved_tokens, member_row.used_tokens,
      member_row.reserved_tokens, cap;
    return;
  end if;
  if cap is not null and member_row.used_tokens + member_row.reserved_tokens + tokens > cap then
    return query select 'cap', pool_row.used_tokens, pool_row.reserved_tokens, member_row.used_tokens,
      member_row.reserved_tokens, cap;
    return;
  end if;
  update public.workspace_usage u
    set reserved_tokens = u.reserved_tokens + tokens, limit_tokens = pool_limit, updated_at = now()
    where u.workspace_id = workspace and u.period_start = period;
  update public.workspace_member_usage s
    set reserved_tokens = s.reserved_tokens + tokens, cap_tokens = cap, updated_at = now()
    where s.workspace_id = workspace and s.user_id = member and s.period_start = period;
  insert into public.workspace_reservations (id, workspace_id, user_id, period_start, tokens, model)
    values (hold_id, workspace, member, period, tokens, model);
  return query select 'held', pool_row.used_tokens, pool_row.reserved_tokens + tokens, member_row.used_tokens,
    member_row.reserved_tokens + tokens, cap;
end;
$$;
comment on function tessera_private.reserve_workspace_tokens(uuid, uuid, uuid, timestamptz, integer, integer, text) is 'Holds a team answer''s tokens within the workspace''s pool and the member''s cap, atomically; the outcome names the limit that refused.';
revoke all on function tessera_private.reserve_workspace_tokens(uuid, uuid, uuid, timestamptz, integer, integer, text) from public, anon, authenticated;

-- The settlement of a team hold: the hold is deleted first (a second settlement finds nothing),
-- then the pool and the member's share move it from reserved to used, counting `charge` but never
-- past the pool or the cap beyond the hold itself, and the day's row per member and model grows.
create function tessera_private.settle_workspace_hold(hold_id uuid, charge integer)
returns table (
  pool_used integer, pool_reserved integer, pool_limit integer, member_used integer,
  member_reserved integer, member_cap integer, charged integer
)
language plpgsql
set search_path = ''
as $$
declare
  held public.workspace_reservations;
  pool_row public.workspace_usage;
  member_row public.workspace_member_usage;
  room bigint;
  counted integer;
begin
  delete from public.workspace_reservations r where r.id = hold_id returning * into held;
  if not found then
    return;
  end if;
  select * into pool_row from public.workspace_usage u
    where u.workspace_id = held.workspace_id and u.period_start = held.period_start for update;
  select * into member_row from public.workspace_member_usage s
    where s.workspace_id = held.workspace_id and s.user_id = held.user_id
      and s.period_start = held.period_start
    for update;
  room := least(
    pool_row.limit_tokens::bigint - pool_row.used_tokens - pool_row.reserved_tokens,
    coalesce(member_row.cap_tokens::bigint - member_row.used_tokens - member_row.reserved_tokens, pool_row.limit_tokens)
  ) + held.tokens;
  counted := least(greatest(charge, 0)::bigint, greatest(held.tokens::bigint, room))::integer;
  update public.workspace_usage u
    set reserved_tokens = u.reserved_tokens - held.tokens, used_tokens = u.used_tokens + counted,
      updated_at = now()
    where u.workspace_id = held.workspace_id and u.period_start = held.period_start;
  update public.workspace_member_usage s
    set reserved_tokens = s.reserved_tokens - held.tokens, used_tokens = s.used_tokens + counted,
      updated_at = now()
    where s.workspace_id = held.workspace_id and s.user_id = held.user_id
      and s.period_start = held.period_start;
  if counted > 0 then
    insert into public.workspace_usage_daily as d (workspace_id, user_id, day, model, tokens, answers)
      values (held.workspace_id, held.user_id, (now() at time zone 'utc')::date, held.model, counted, 1)
      on conflict (workspace_id, day, user_id, model)
      do update set tokens = d.tokens + excluded.tokens, answers = d.answers + 1;
  end if;
  return query select pool_row.used_tokens + counted, pool_row.reserved_tokens - held.tokens,
    pool_row.limit_tokens, member_row.used_tokens + counted, member_row.reserved_tokens - held.tokens,
    member_row.cap_tokens, counted;
end;
$$;
comment on function tessera_private.settle_workspace_hold(uuid, integer) is 'Settles a team hold once: reserved to used in the pool and the member''s share, within both limits, and the day''s usage row.';
revoke all on function tessera_private.settle_workspace_hold(uuid, integer) from public, anon, authenticated;

-- Releases, uncharged, team holds older than `older_than` (a BFF that died mid-answer): one
-- workspace's, or every workspace's with null. Pools are locked before shares, in id order.
create function tessera_private.release_stale_workspace_holds(
  workspace uuid, older_than interval
) returns integer
language plpgsql
set search_path = ''
as $$
declare
  released record;
  total integer := 0;
begin
  for released in
    with stale as (
      delete from public.workspace_reservations r
      where (workspace is null or r.workspace_id = workspace) and r.created_at < now() - older_than
      returning r.workspace_id, r.user_id, r.period_start, r.tokens
    )
    select stale.workspace_id, stale.user_id, stale.period_start, sum(stale.tokens)::integer as tokens
    from stale group by 1, 2, 3 order by 1, 3, 2
  loop
    update public.workspace_usage u
      set reserved_tokens = u.reserved_tokens - released.tokens, updated_at = now()
      where u.workspace_id = released.workspace_id and u.period_start = released.period_start;
    update public.workspace_member_usage s
      set reserved_tokens = s.reserved_tokens - released.tokens, updated_at = now()
      where s.workspace_id = released.workspace_id and s.user_id = released.user_id
        and s.period_start = released.period_start;
    total := total + released.tokens;
  end loop;
  return total;
end;
$$;
comment on function tessera_private.release_stale_workspace_holds(uuid, interval) is 'Releases, uncharged, team holds older than the interval (one workspace''s, or all with null); the tokens released.';
revoke all on function tessera_private.release_stale_workspace_holds(uuid, interval) from public, anon, authenticated;
