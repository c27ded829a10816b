-- Branches of a conversation (docs/decisions/031): messages form a tree. Each message hangs off
-- the one before it (`parent_id`; null for a first message); an edit adds a sibling user message,
-- a regenerate a sibling answer. Among siblings exactly one is `selected`, and the visible thread
-- (what is listed and what the model is sent) is the path from the selected first message down
-- through each selected child. A branch not shown keeps its own selections, so paging back to it
-- shows it as it was.

alter table public.assistant_messages
  add column parent_id uuid,
  add column selected boolean not null default true,
  -- A parent in the same conversation (a foreign key's check bypasses RLS, so the key itself
  -- keeps a user from hanging a message under another conversation's).
  add constraint assistant_messages_conversation_id_id_key unique (conversation_id, id),
  add constraint assistant_messages_parent_fkey foreign key (conversation_id, parent_id)
    references public.assistant_messages (conversation_id, id) on delete cascade;

comment on column public.assistant_messages.parent_id is 'The message this one follows: null for a first message; an edit or a regenerate adds a sibling under the same parent.';
comment on column public.assistant_messages.selected is 'The version shown among its siblings (same conversation and parent): exactly one is.';

-- Every conversation so far is one path: each message follows the one stored before it.
update public.assistant_messages message
set parent_id = previous.parent_id
from (
  select id, lag(id) over (partition by conversation_id order by seq) as parent_id
  from public.assistant_messages
) previous
where previous.id = message.id and previous.parent_id is not null;

-- The walk down the thread (a parent, then its selected child), and a message's versions (its
-- siblings; a first message's "parent" is its conversation).
create index assistant_messages_parent_id_idx on public.assistant_messages (parent_id);
create index assistant_messages_siblings_idx
  on public.assistant_messages (conversation_id, coalesce(parent_id, conversation_id), seq);
-- At most one selected version among siblings.
create unique index assistant_messages_one_selected_idx
  on public.assistant_messages (conversation_id, coalesce(parent_id, conversation_id))
  where selected;

-- Selecting a version (a new one inserted selected, or one paged to) unselects its siblings, in
-- the statement that selects it: two tabs adding a message at once leave two versions, not two
-- selected ones. Runs as the caller, under RLS: a user unselects only their own messages.
create function public.assistant_messages_select_version() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  update public.assistant_messages sibling
  set selected = false
  where sibling.conversation_id = new.conversation_id
    and sibling.selected
    and sibling.id <> new.id
    and (sibling.parent_id = new.parent_id or (sibling.parent_id is null and new.parent_id is null));
  return new;
end;
$$;
comment on function public.assistant_messages_select_version() is 'Unselects the siblings of a message being selected (inserted selected, or paged to).';

create trigger assistant_messages_select_version_on_insert
  before insert on public.assistant_messages
  for each row when (new.selected)
  execute function public.assistant_messages_select_version();

create trigger assistant_messages_select_version_on_update
  before update of selected on public.assistant_messages
  for each row when (new.selected and not old.selected)
  execute function public.assistant_messages_select_version();

-- The ids of a thread. With `before_id` null: the visible thread (the selected path from the
-- first message down). With a message: the messages before it on its own path (its ancestors),
-- which is what an edit of it, or a regenerate of its answer, sends the model. Security invoker:
-- RLS decides what the caller may walk.
create function public.assistant_thread(conversation uuid, before_id uuid)
returns table (id uuid)
language sql
stable
set search_path = ''
as $$
  with recursive
    visible as (
      select message.id from public.assistant_messages message
      where before_id is null
        and message.conversation_id = conversation
        and message.parent_id is null
        and message.selected
      union all
      -- One index lookup a step (a join here may scan the table once per step).
      select child.id from visible
      cross join lateral (
        select next.id from public.assistant_messages next
        where next.parent_id = visible.id and next.selected
        limit 1
      ) child
    ),
    ancestors as (
      select message.parent_id as id from public.assistant_messages message
      where message.id = before_id and message.conversation_id = conversation
      union all
      select up.parent_id from ancestors
      cross join lateral (
        select message.parent_id from public.assistant_messages message
        where message.id = ancestors.id
      ) up
    )
  select visible.id from visible
  union all
  select ancestors.id from ancestors where ancestors.id is not null;
$$;
comment on function public.assistant_thread(uuid, uuid) is 'The visible thread of a conversation (before_id null), or the messages before one message on its path.';

revoke all on function public.assistant_thread(uuid, uuid) from public, anon;
grant execute on function public.assistant_thread(uuid, uuid) to authenticated;
revoke all on function public.assistant_messages_select_version() from public, anon;

-- Users add messages under a parent and page between versions; nothing else changes.
grant insert (parent_id, selected) on table public.assistant_messages to authenticated;
grant update (selected) on table public.assistant_messages to authenticated;
