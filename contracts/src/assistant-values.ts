// Plain values of the assistant's contract, with no zod: remotes import them from
// `@tessera/contracts/assistant-values` without bundling the schemas (the header's usage meter
// loads on every page). `assistant.ts` re-exports them.

/** Longest message a person can send (characters). */
export const MESSAGE_MAX_LENGTH = 16_000
export const CONVERSATION_TITLE_MAX_LENGTH = 120
/** The live event carrying the month's usage. */
export const USAGE_EVENT_TYPE = 'assistant.usage'
