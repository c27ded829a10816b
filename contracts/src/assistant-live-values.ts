// The live event types of answers other tabs follow, with no zod: the assistant remote imports
// them from `@tessera/contracts/assistant-live-values` without bundling the schemas.
// `assistant-live.ts` re-exports them.

/** A batch of an answer's text, stored in its message row in the same transaction. */
export const ANSWER_DELTA_EVENT_TYPE = 'assistant.answer.delta'
/** An answer ended: the message as stored (complete, partial or failed). */
export const ANSWER_DONE_EVENT_TYPE = 'assistant.answer.done'
/** Someone asked to stop the answers streaming in a conversation (any tab, any replica). */
export const ANSWER_STOP_EVENT_TYPE = 'assistant.answer.stop'
