-- Files sent to the assistant (issue 20): the rows here, the bytes in a private Supabase Storage
-- bucket the BFF alone reaches with the service key. A row is the user's from its upload; it is
-- tied to the message it was sent with, and goes with that message's conversation. Each removed
-- row leaves its object's path in a queue, in the same transaction, which the BFF empties by
-- deleting the objects: no stored file outlives its row (docs/decisions/033).

create table public.assistant_attachments (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- Null until sent; the user's message it went with (one message per attachment).
  message_id uuid references public.assistant_messages (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 200),
  -- Decided from the bytes: image | pdf | text.
  kind text not null check (kind in ('image', 'pdf', 'text')),
  content_type text not null
    check (content_type in ('image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain')),
  size_bytes integer not null check (size_bytes > 0),
  -- Pixel size of an image, null for the other kinds.
  width integer check (width > 0),
  height integer check (height > 0),
  -- What the model reads of a PDF or text file; null for images.
  text_content text,
  -- The object's path in the bucket (`<user_id>/<id>`).
  object_path text not null unique,
  created_at timestamptz not null default now(),
  constraint assistant_attachments_text_kind check ((text_content is null) = (kind = 'image'))
);
comment on table public.assistant_attachments is 'Files uploaded to the assistant: name, kind found from the bytes, size, and the message they were sent with; the bytes are in Storage.';

create index assistant_attachments_user_id_idx on public.assistant_attachments (user_id, created_at);
create index assistant_attachments_message_id_idx on public.assistant_attachments (message_id);

alter table public.assistant_attachments enable row level security;

create policy "Users can read their own attachments"
  on public.assistant_attachments for select to authenticated
  using ((select auth.uid()) = user_id);

create policy "Users can add their own attachments"
  on public.assistant_attachments for insert to authenticated
  with check ((select auth.uid()) = user_id and message_id is null);

-- Sending ties an attachment to one of the user's own messages.
create policy "Users can send their own attachments"
  on public.assistant_attachments for update to authenticated
  using ((select auth.uid()) = user_id)
  with check (
    (select auth.uid()) = user_id
    and (
      message_id is null
      or exists (
        select 1 from public.assistant_messages message
        where message.id = message_id and message.user_id = (select auth.uid())
      )
    )
  );

-- No delete policy: attachments go with their message (on delete cascade) or their user.
revoke all on table public.assistant_attachments from anon, authenticated;
grant select on table public.assistant_attachments to authenticated;
grant insert (id, user_id, name, kind, content_type, size_bytes, width, height, text_content, object_path)
  on table public.assistant_attachments to authenticated;
grant update (message_id) on table public.assistant_attachments to authenticated;

create table public.assistant_attachment_removals (
  object_path text primary key,
  removed_at timestamptz not null default now()
);
comment on table public.assistant_attachment_removals is 'Storage objects whose attachment rows are gone, waiting for the BFF to delete them. Only the BFF''s own connection reads or writes it.';

alter table public.assistant_attachment_removals enable row level security;
revoke all on table public.assistant_attachment_removals from anon, authenticated;

-- Runs as its owner: the user who deletes a conversation cannot write the queue themselves.
create function public.queue_attachment_removal() returns trigger
  language plpgsql security definer set search_path = '' as $$
begin
  insert into public.assistant_attachment_removals (object_path) values (old.object_path)
    on conflict (object_path) do nothing;
  return old;
end;
$$;
revoke all on function public.queue_attachment_removal() from public, anon, authenticated;

create trigger assistant_attachments_queue_removal
  after delete on public.assistant_attachments
  for each row execute function public.queue_attachment_removal();

create table public.assistant_attachment_usage (
  user_id uuid not null references auth.users (id) on delete cascade,
  period_start timestamptz not null,
  -- Bytes uploaded this month; deleting a file does not give them back.
  used_bytes bigint not null default 0 check (used_bytes >= 0),
  primary key (user_id, period_start)
);
comment on table public.assistant_attachment_usage is 'Bytes each user uploaded to the assistant per calendar month, against the plan''s allowance. Written only by the BFF''s own connection.';

alter table public.assistant_attachment_usage enable row level security;

create policy "Users can read their own attachment usage"
  on public.assistant_attachment_usage for select to authenticated
  using ((select auth.uid()) = user_id);

revoke all on table public.assistant_attachment_usage from anon, authenticated;
grant select on table public.assistant_attachment_usage to authenticated;
