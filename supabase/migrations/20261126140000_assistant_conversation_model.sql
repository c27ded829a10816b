-- Model choice by plan (issue 20, docs/decisions/028): a conversation remembers the model its last
-- send used, so the composer's picker opens on it. The BFF writes it with each send, as the user
-- (the update policy already limits that to the conversation's author); a model the plan no longer
-- allows is not refused when read back, the next send falls back to the plan's default.

alter table public.assistant_conversations
  -- Null: no send yet (the plan's default). The catalogue's names; the BFF checks them.
  add column model text check (model is null or char_length(model) between 1 and 64);

comment on column public.assistant_conversations.model is 'The model the conversation''s last send used (the composer''s picker restores it); null until the first send.';

grant update (model) on table public.assistant_conversations to authenticated;
