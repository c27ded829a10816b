-- Conversation search (issue 20, docs/decisions/029): full-text search over the messages' text and
-- the conversations' titles. Searches run as the user under RLS, whose policies (own OR shared
-- with a workspace) keep the planner from using a full-text index as an index condition (the
-- match operator is not leakproof): it reads the caller's rows by their own indexes and matches
-- each. So each message keeps its vector, computed once when its text is written, rather than
-- parsing every message on every search (measured: 20,000 messages, a search 745 ms → see 029).
-- The 'english' configuration stems words ("charts" finds "chart").

alter table public.assistant_messages
  add column search_vector tsvector
    generated always as (to_tsvector('english'::regconfig, content)) stored;

-- For reads that may use it (the BFF's own connection, a future leakproof path).
create index assistant_messages_search_vector_idx
  on public.assistant_messages using gin (search_vector);

-- Titles are short and few per person: an expression index, matched as it is written.
create index assistant_conversations_title_search_idx
  on public.assistant_conversations using gin (to_tsvector('english'::regconfig, coalesce(title, '')));
