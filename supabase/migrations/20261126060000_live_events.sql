-- Live events through PostgreSQL (docs/decisions/017): a transactional outbox. A change and the
-- live event that tells open tabs about it are written in one transaction; NOTIFY wakes every BFF
-- replica, which reads the new rows in id order and hands them to its own event streams. The rows
-- stay for a retention window so a tab that reconnects (Last-Event-ID) gets what it missed; the
-- replicas delete older ones themselves. Only the BFF's own connection reads this table.

create table public.live_events (
  id bigint generated always as identity primary key,
  -- 'broadcast', 'user:<uuid>', or 'internal' (cache invalidations between replicas, never sent
  -- to a browser).
  topic text not null check (topic in ('broadcast', 'internal') or topic ~ '^user:.+$'),
  -- The LiveEvent as the contract shapes it ({ id, type, at, data }).
  event jsonb not null,
  -- The clock at insert, not the transaction's start: the retention window counts from here.
  created_at timestamptz not null default clock_timestamp()
);
comment on table public.live_events is 'Outbox of live events: written with the change they announce, relayed to every BFF replica by NOTIFY, kept for a retention window for reconnecting tabs.';

-- The retention sweep looks for the oldest row still inside the window.
create index live_events_created_at_idx on public.live_events (created_at);

alter table public.live_events enable row level security;
-- No policy: the API roles reach nothing; the BFF's connection owns the table.
revoke all on table public.live_events from anon, authenticated;

-- Not an API schema: PostgREST does not expose it, so the function below is no public RPC.
create schema if not exists tessera_private;
revoke all on schema tessera_private from public;
grant usage on schema tessera_private to authenticated;

-- The one way to publish: insert the row and notify, inside the caller's transaction.
create function tessera_private.publish_live_event(event_topic text, event_body jsonb)
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  new_id bigint;
begin
  -- Inside a user's transaction (withUser: `set local role authenticated`), a statement may only
  -- announce that user's own news: their topic, or the invalidation of their own cached rows.
  if current_setting('role') <> 'none' and not (
    event_topic = 'user:' || (select auth.uid())::text
    or (
      event_topic = 'internal'
      and event_body ->> 'type' = 'cache.invalidate'
      and event_body -> 'data' ->> 'userId' = (select auth.uid())::text
    )
  ) then
    raise exception 'a user''s transaction may only publish that user''s own events'
      using errcode = 'insufficient_privilege';
  end if;
  -- One publisher at a time from here to its commit: ids are then taken in commit order, so a
  -- replica that has read every row up to id N never sees a smaller id commit later.
  perform pg_advisory_xact_lock(hashtext('public.live_events'));
  insert into public.live_events (topic, event) values (event_topic, event_body)
  returning id into new_id;
  -- The payload is the id and topic only (NOTIFY payloads are capped at 8000 bytes).
  perform pg_notify('tessera_events', json_build_object('id', new_id, 'topic', event_topic)::text);
  return new_id;
end;
$$;
comment on function tessera_private.publish_live_event(text, jsonb) is 'Writes a live event to the outbox and wakes every BFF replica (NOTIFY tessera_events) at commit.';

revoke all on function tessera_private.publish_live_event(text, jsonb) from public, anon;
grant execute on function tessera_private.publish_live_event(text, jsonb) to authenticated;
