-- Public share links of conversations (issue 20, docs/decisions/030): the author makes a
-- read-only link anybody can open without signing in. The id is the secret (24 random bytes,
-- base64url); revoking deletes the row, and deleting the conversation deletes its link. The
-- public page is read by the BFF's own connection, by id: anon has no grant here.

create table public.assistant_share_links (
  -- 192 random bits as base64url (32 characters): unguessable, and the only way in.
  id text primary key check (id ~ '^[A-Za-z0-9_-]{32}$'),
  -- One live link per conversation: sharing again returns it; revoking and sharing makes a new one.
  conversation_id uuid not null unique
    references public.assistant_conversations (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now()
);
comment on table public.assistant_share_links is 'Read-only public links to assistant conversations: made and revoked by the author, read by anyone who has the id (through the BFF).';

-- The author's list of what they shared, newest first.
create index assistant_share_links_user_created_idx
  on public.assistant_share_links (user_id, created_at desc);

alter table public.assistant_share_links enable row level security;

create policy "Users can read their own share links"
  on public.assistant_share_links for select to authenticated
  using ((select auth.uid()) = user_id);

-- Only the author of a conversation can share it publicly (a member reading a team conversation
-- cannot publish it): the conversation must be theirs, which RLS on it alone would not say.
create policy "Users can share their own conversations"
  on public.assistant_share_links for insert to authenticated
  with check (
    (select auth.uid()) = user_id
    and exists (
      select 1 from public.assistant_conversations conversation
      where conversation.id = conversation_id and conversation.user_id = (select auth.uid())
    )
  );

create policy "Users can revoke their own share links"
  on public.assistant_share_links for delete to authenticated
  using ((select auth.uid()) = user_id);

-- No update: a link is made or revoked, never changed. Nothing for anon.
revoke all on table public.assistant_share_links from anon, authenticated;
grant select, delete on table public.assistant_share_links to authenticated;
grant insert (id, conversation_id, user_id) on table public.assistant_share_links to authenticated;
