/**
 * Live events that let every tab of a user follow an answer while it streams, whichever BFF
 * replica streams it (docs/decisions/032): its text in batches with their character offset, its
 * end, and a request to stop it. They travel on the user's topic of `GET /api/events`.
 */
import { z } from 'zod/mini'
import { chatMessageSchema } from './assistant.ts'

export * from './assistant-live-values.ts'

/** An `assistant.answer.delta` event's data: `text` starts at character `offset` of the answer. */
export const answerDeltaSchema = z.object({
  conversationId: z.string(),
  messageId: z.string(),
  offset: z.int().check(z.nonnegative()),
  text: z.string(),
})
export type AnswerDelta = z.infer<typeof answerDeltaSchema>

/** An `assistant.answer.done` event's data: the answer as stored at its end. */
export const answerDoneSchema = z.object({
  conversationId: z.string(),
  message: chatMessageSchema,
})
export type AnswerDone = z.infer<typeof answerDoneSchema>

/** An `assistant.answer.stop` event's data. */
export const answerStopSchema = z.object({ conversationId: z.string() })
export type AnswerStop = z.infer<typeof answerStopSchema>

/** `POST /api/assistant/conversations/:id/stop` takes an empty JSON object. */
export const stopAnswerBodySchema = z.strictObject({})

/** `POST /api/assistant/conversations/:id/stop` answers how many answers were streaming there. */
export const stopAnswerResponseSchema = z.object({ streaming: z.int().check(z.nonnegative()) })
export type StopAnswerResponse = z.infer<typeof stopAnswerResponseSchema>
