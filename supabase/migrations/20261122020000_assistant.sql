-- The assistant: conversations and their messages (read and written as the user, under RLS), and
-- the monthly token accounting (written only by the BFF's own connection, read by the user).

create table public.assistant_conversations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- Null until the first message names it (or the user does).
  title text check (title is null or char_length(title) between 1 and 120),
  created_at timestamptz not null default now(),
  -- Stamped by a trigger on every change, and touched by every message sent: lists sort by it.
  updated_at timestamptz not null default now()
);
comment on table public.assistant_conversations is 'Each user''s assistant conversations: title and last activity; messages hang off them.';

-- The list's order (most recent first) and its keyset cursor, per user.
create index assistant_conversations_user_recent_idx
  on public.assistant_conversations (user_id, updated_at desc, id desc);

alter table public.assistant_conversations enable row level security;

-- One policy per operation and role; `(select auth.uid())` is evaluated once per statement.
create policy "Users can read their own conversations"
  on public.assistant_conversations for select to authenticated
  using ((select auth.uid()) = user_id);

create policy "Users can create their own conversations"
  on public.assistant_conversations for insert to authenticated
  with check ((select auth.uid()) = user_id);

create policy "Users can update their own conversations"
  on public.assistant_conversations for update to authenticated
  using ((select auth.uid()) = user_id)
  with check ((select auth.uid()) = user_id);

create policy "Users can delete their own conversations"
  on public.assistant_conversations for delete to authenticated
  using ((select auth.uid()) = user_id);

-- Users may write the title only; ids and creation time belong to the database, and the
-- trigger below overwrites whatever updated_at is sent with the time of the change. Nothing for
-- anon, and no truncate (it would bypass RLS).
revoke all on table public.assistant_conversations from anon, authenticated;
grant select, delete on table public.assistant_conversations to authenticated;
grant insert (user_id, title) on table public.assistant_conversations to authenticated;
grant update (title, updated_at) on table public.assistant_conversations to authenticated;

create trigger assistant_conversations_set_updated_at
  before update on public.assistant_conversations
  for each row execute function public.set_updated_at();

create table public.assistant_messages (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: the two messages of one send share created_at (one transaction).
  seq bigint generated always as identity,
  conversation_id uuid not null references public.assistant_conversations (id) on delete cascade,
  -- Denormalised from the conversation so the policies need no join.
  user_id uuid not null references auth.users (id) on delete cascade,
  role text not null check (role in ('user', 'assistant')),
  content text not null default '' check (char_length(content) <= 200000),
  -- complete | partial (stopped or cut, kept as far as it came) | streaming | failed (nothing came).
  status text not null check (status in ('complete', 'partial', 'streaming', 'failed')),
  -- The plan's model that answered (assistant messages).
  model text,
  -- Usage of an answer: all three set, or none.
  prompt_tokens integer check (prompt_tokens >= 0),
  completion_tokens integer check (completion_tokens >= 0),
  usage_estimated boolean,
  -- A catalogue code (contracts/src/errors.ts) saying why an answer is partial or failed.
  error_code text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint assistant_messages_usage_whole check (
    (prompt_tokens is null) = (completion_tokens is null)
    and (prompt_tokens is null) = (usage_estimated is null)
  )
);
comment on table public.assistant_messages is 'The messages of assistant conversations: the user''s, and the model''s answers with their status and token usage.';

create index assistant_messages_conversation_seq_idx
  on public.assistant_messages (conversation_id, seq);
create index assistant_messages_user_id_idx on public.assistant_messages (user_id);

alter table public.assistant_messages enable row level security;

create policy "Users can read their own messages"
  on public.assistant_messages for select to authenticated
  using ((select auth.uid()) = user_id);

-- The foreign key alone would let a user add messages to a conversation that is not theirs (its
-- check bypasses RLS): the conversation must be the user's too.
create policy "Users can add messages to their own conversations"
  on public.assistant_messages for insert to authenticated
  with check (
    (select auth.uid()) = user_id
    and exists (
      select 1 from public.assistant_conversations conversation
      where conversation.id = conversation_id and conversation.user_id = (select auth.uid())
    )
  );

create policy "Users can update their own messages"
  on public.assistant_messages for update to authenticated
  using ((select auth.uid()) = user_id)
  with check ((select auth.uid()) = user_id);

-- No delete policy: messages go with their conversation (on delete cascade). The BFF makes the
-- ids and times of a send's two messages itself (it shows them before they are stored); the
-- order and the time of each change belong to the database.
revoke all on table public.assistant_messages from anon, authenticated;
grant select on table public.assistant_messages to authenticated;
grant insert (id, conversation_id, user_id, role, content, status, model, created_at)
  on table public.assistant_messages to authenticated;
grant update (content, status, prompt_tokens, completion_tokens, usage_estimated, error_code)
  on table public.assistant_messages to authenticated;

create trigger assistant_messages_set_updated_at
  before update on public.assistant_messages
  for each row execute function public.set_updated_at();

create table public.assistant_usage (
  user_id uuid not null references auth.users (id) on delete cascade,
  -- The calendar month (UTC) the counters are for: midnight of its first day.
  period_start timestamptz not null,
  -- Tokens settled (prompt + completion) this month.
  used_tokens integer not null default 0 check (used_tokens >= 0),
  -- Tokens held for answers still streaming.
  reserved_tokens integer not null default 0 check (reserved_tokens >= 0),
  -- The plan's monthly limit when the last reservation was taken.
  limit_tokens integer not null check (limit_tokens >= 0),
  updated_at timestamptz not null default now(),
  primary key (user_id, period_start),
  -- The invariant every reservation and settlement keeps (docs/decisions/008): a bug that would
  -- break it fails the statement instead of letting a user past the plan's limit.
  constraint assistant_usage_within_limit check (used_tokens + reserved_tokens <= limit_tokens)
);
comment on table public.assistant_usage is 'Assistant tokens per user and calendar month: settled, reserved for answers in flight, and the plan limit. Written only by the BFF''s own connection.';

alter table public.assistant_usage enable row level security;

create policy "Users can read their own usage"
  on public.assistant_usage for select to authenticated
  using ((select auth.uid()) = user_id);

-- No insert, update or delete policy or grant: only the BFF's own connection counts tokens.
revoke all on table public.assistant_usage from anon, authenticated;
grant select on table public.assistant_usage to authenticated;

create table public.assistant_reservations (
  id uuid primary key,
  user_id uuid not null,
  period_start timestamptz not null,
  tokens integer not null check (tokens > 0),
  created_at timestamptz not null default now(),
  foreign key (user_id, period_start)
    references public.assistant_usage (user_id, period_start) on delete cascade
);
comment on table public.assistant_reservations is 'Tokens held for each answer in flight, so a settlement applies once and a BFF that died mid-answer cannot hold them forever. Only the BFF''s own connection reads or writes it.';

create index assistant_reservations_user_created_idx
  on public.assistant_reservations (user_id, created_at);

-- RLS on and no policy for anon or authenticated: the API roles see and change nothing here.
alter table public.assistant_reservations enable row level security;
revoke all on table public.assistant_reservations from anon, authenticated;
