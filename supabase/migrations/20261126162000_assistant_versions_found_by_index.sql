-- Selecting a version unselects its siblings (20261126143000_assistant_message_branches.sql). The
-- trigger runs for every message a send inserts, and its `parent_id = … or (both null)` test could
-- not use an index: each call walked the conversation's messages under RLS (0.75 ms a call on the
-- embedded database, two calls a send; decision 037). The siblings are the rows of the unique
-- index `assistant_messages_one_selected_idx`, whose key names them the same way:
-- (conversation_id, coalesce(parent_id, conversation_id)), selected. Same rows, found by the index.
create or replace function public.assistant_messages_select_version() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  update public.assistant_messages sibling
  set selected = false
  where sibling.conversation_id = new.conversation_id
    and coalesce(sibling.parent_id, sibling.conversation_id)
      = coalesce(new.parent_id, new.conversation_id)
    and sibling.selected
    and sibling.id <> new.id;
  return new;
end;
$$;
