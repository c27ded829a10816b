-- Conversation search (issue 20, docs/decisions/029): full-text indexes on what people search, the
-- messages' text and the conversations' titles. Expression indexes rather than stored tsvector
-- columns: nothing else reads a vector, the tables are not rewritten, and a search's `where`
-- names the same expression so the planner uses them. The 'english' configuration stems words
-- ("charts" finds "chart"); reads still go through RLS as the user, so nobody finds another's.

create index assistant_messages_content_search_idx
  on public.assistant_messages using gin (to_tsvector('english'::regconfig, content));

create index assistant_conversations_title_search_idx
  on public.assistant_conversations using gin (to_tsvector('english'::regconfig, coalesce(title, '')));
