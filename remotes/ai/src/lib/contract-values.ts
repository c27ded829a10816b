/*
 * Values of `@tessera/contracts/assistant` this remote needs at run time. Importing them from
 * there would bundle zod (that module builds its schemas when it loads) into the header's usage
 * meter, which every page loads; `contract-values.test.ts` keeps these equal to the contract's.
 */

/** Longest message a person can send (characters). */
export const MESSAGE_MAX_LENGTH = 16_000
export const CONVERSATION_TITLE_MAX_LENGTH = 120
/** The live event carrying the month's usage. */
export const USAGE_EVENT_TYPE = 'assistant.usage'
