-- The thread walk (20261126143000_assistant_message_branches.sql) runs before every answer, twice
-- (the history the model is sent and the hold's bound). As a SQL function with its own
-- search_path it is never inlined, and PostgreSQL before 18 plans such a function's query again
-- on every call; in PL/pgSQL the plan is kept for the session (decision 037). Same query, same
-- rules: security invoker, so RLS still decides what the caller may walk.
create or replace function public.assistant_thread(conversation uuid, before_id uuid)
returns table (id uuid)
language plpgsql
stable
set search_path = ''
as $$
begin
  return query
  with recursive
    visible as (
      select message.id from public.assistant_messages message
      where assistant_thread.before_id is null
        and message.conversation_id = assistant_thread.conversation
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
      where message.id = assistant_thread.before_id
        and message.conversation_id = assistant_thread.conversation
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
end;
$$;
