-- The thread walk runs three times before every answer (the history the model is sent, the hold's
-- bound and where the question hangs). PL/pgSQL keeps its plan for the session, but a plan with
-- parameters is planned again for each call's values ("custom") until the server has seen five
-- and judged a generic one no worse: 0.6–0.8 ms of planning a call on PostgreSQL 15 against
-- 0.06 ms to run it, and on a pooled connection most calls were among those first ones
-- (decision 042). The walk is index lookups whatever the conversation: one generic plan, kept.
alter function public.assistant_thread(uuid, uuid) set plan_cache_mode = force_generic_plan;
