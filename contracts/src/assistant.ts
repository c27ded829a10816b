import { z } from 'zod/mini'
import { errorCodes } from './errors.ts'
import { assistantModels } from './plans.ts'
import { CONVERSATION_TITLE_MAX_LENGTH, MESSAGE_MAX_LENGTH } from './assistant-values.ts'
import { plainText } from './text.ts'
import { attachmentIdsSchema, attachmentSchema } from './attachments.ts'

export * from './assistant-values.ts'
export type { Attachment } from './attachments.ts'

/** A conversation in the list (`/api/assistant/conversations`); dates are ISO 8601. */
export const conversationSchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Shared with the members of its (team) workspace, who may read it. */
  shared: z.optional(z.boolean()),
  /**
   * Set when another member wrote it and shared it: their name (or email). Such a conversation is
   * read-only here: no send, rename, delete or share (403 `conversation_read_only`).
   */
  sharedBy: z.optional(z.nullable(z.string())),
  /**
   * The model its last send used, which the composer's picker restores (null: none yet, the
   * plan's default). A model the plan no longer allows falls back to the default on the next send.
   */
  model: z.optional(z.nullable(z.enum(assistantModels))),
})
export type Conversation = z.infer<typeof conversationSchema>

/** Conversations a page holds by default, and at most (`limit`). */
export const CONVERSATION_PAGE_DEFAULT = 20
export const CONVERSATION_PAGE_MAX = 100

/**
 * `GET /api/assistant/conversations?limit=&cursor=`: most recently active first (a send or a
 * rename moves a conversation to the top); `nextCursor` (opaque) null at the end.
 */
export const conversationPageSchema = z.object({
  conversations: z.array(conversationSchema),
  nextCursor: z.nullable(z.string()),
})
export type ConversationPage = z.infer<typeof conversationPageSchema>

/** The query of `GET /api/assistant/conversations`. */
export const conversationPageQuerySchema = z.object({
  limit: z._default(
    z.coerce
      .number({ error: 'The page size must be a number.' })
      .check(
        z.int('The page size must be a whole number.'),
        z.gte(1, 'The page size must be at least 1.'),
        z.lte(CONVERSATION_PAGE_MAX, `The page size can be at most ${CONVERSATION_PAGE_MAX}.`),
      ),
    CONVERSATION_PAGE_DEFAULT,
  ),
  cursor: z.optional(z.string().check(z.minLength(1), z.maxLength(200), plainText())),
})

const titleSchema = z
  .string({ error: 'Enter a title.' })
  .check(
    z.trim(),
    z.minLength(1, 'Enter a title.'),
    z.maxLength(
      CONVERSATION_TITLE_MAX_LENGTH,
      `A title can have at most ${CONVERSATION_TITLE_MAX_LENGTH} characters.`,
    ),
    plainText('A title cannot contain control characters.'),
  )

/** `POST /api/assistant/conversations` (title optional: the first message names it). */
export const createConversationBodySchema = z.strictObject({ title: z.optional(titleSchema) })
/** `PATCH /api/assistant/conversations/:id`. */
export const renameConversationBodySchema = z.strictObject({ title: titleSchema })

/**
 * `PATCH /api/assistant/conversations/:id`: a new title, or sharing with the team workspace
 * (`shared`, the author only; 409 `sharing_unavailable` outside a team workspace), or both.
 */
export const updateConversationBodySchema = z
  .strictObject({
    title: z.optional(titleSchema),
    shared: z.optional(z.boolean({ error: 'Shared is true or false.' })),
  })
  .check(
    z.refine((body) => body.title !== undefined || body.shared !== undefined, {
      error: 'Send a new title, or whether the conversation is shared.',
    }),
  )
export type UpdateConversationBody = z.infer<typeof updateConversationBodySchema>

/**
 * The answer of `POST /api/assistant/conversations` (201) and `PATCH …/conversations/:id` (200).
 * `DELETE …/conversations/:id` answers 204 and removes the conversation's messages with it.
 */
export const conversationResponseSchema = z.object({ conversation: conversationSchema })
export type ConversationResponse = z.infer<typeof conversationResponseSchema>

export const messageStatuses = ['complete', 'partial', 'streaming', 'failed'] as const
export type MessageStatus = (typeof messageStatuses)[number]

export const tokenUsageSchema = z.object({
  promptTokens: z.int().check(z.nonnegative()),
  completionTokens: z.int().check(z.nonnegative()),
  totalTokens: z.int().check(z.nonnegative()),
  /** True when the model's usage report was lost and the numbers are the BFF's estimate. */
  estimated: z.boolean(),
})
export type TokenUsage = z.infer<typeof tokenUsageSchema>

/** One message of a conversation. */
export const chatMessageSchema = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  /** `partial`: stopped or cut, kept as far as it came; `failed`: nothing came back. */
  status: z.enum(messageStatuses),
  model: z.nullable(z.enum(assistantModels)),
  usage: z.nullable(tokenUsageSchema),
  /** Why an assistant message is partial or failed. */
  error: z.nullable(z.object({ code: z.enum(errorCodes), message: z.string() })),
  createdAt: z.string(),
  /** Files sent with a user's message (absent when none). */
  attachments: z.optional(z.array(attachmentSchema)),
  /**
   * The ids of this message's versions (edits of a question, regenerations of an answer), oldest
   * first, itself among them; listed only when there is more than one (decision 031).
   */
  versions: z.optional(z.array(z.string())),
})
export type ChatMessage = z.infer<typeof chatMessageSchema>

/** `GET /api/assistant/conversations/:id/messages`: oldest first. */
export const messageListSchema = z.object({
  conversation: conversationSchema,
  messages: z.array(chatMessageSchema),
})

/** `POST /api/assistant/conversations/:id/messages`: the answer is an SSE stream (below). */
export const sendMessageBodySchema = z.strictObject({
  content: z
    .string({ error: 'Write a message.' })
    .check(
      z.trim(),
      z.minLength(1, 'Write a message.'),
      z.maxLength(
        MESSAGE_MAX_LENGTH,
        `A message can have at most ${MESSAGE_MAX_LENGTH} characters.`,
      ),
      plainText('A message cannot contain control characters.'),
    ),
  /**
   * The model to answer with (the catalogue's names); absent: the conversation's last one if the
   * plan still allows it, else the plan's default. One the plan does not allow: 403 `model_not_in_plan`.
   */
  model: z.optional(
    z.enum(assistantModels, { error: `Choose one of the models: ${assistantModels.join(', ')}.` }),
  ),
  /** Uploaded files to send with the message (`POST /api/assistant/attachments`). */
  attachmentIds: z.optional(attachmentIdsSchema),
})
export type SendMessageBody = z.infer<typeof sendMessageBodySchema>

/**
 * `POST /api/assistant/conversations/:id/messages/:messageId/edit`: a new version of one of the
 * user's questions, answered as a send is (the same SSE stream); the answers after the old version
 * stay with it, as a branch (decision 031).
 */
export const editMessageBodySchema = sendMessageBodySchema

/**
 * `POST …/messages/:messageId/regenerate` (an answer: a new version of it, streamed as a send is)
 * and `PUT …/messages/:messageId/active` (show this version; answers the message list): `{}`.
 */
export const emptyBodySchema = z.strictObject({})

/**
 * SSE events of a send, in order: `message` (the user's message and the assistant's placeholder as
 * they are stored, and the conversation, titled by its first message; it comes with the first
 * token, or after a quarter of a second without one, or ahead of an early error), `delta`* (text
 * to append), `usage` (once: what this answer counted, zeros when nothing was), then `done` or `error` (last).
 * A refusal before the answer starts (`quota_exceeded`, `content_flagged`, `rate_limited`,
 * `not_found`, an unreachable moderation) is a plain JSON error response, not a stream.
 */
export const chatStreamEventSchemas = {
  message: z.object({
    user: chatMessageSchema,
    assistant: chatMessageSchema,
    conversation: conversationSchema,
  }),
  delta: z.object({ text: z.string() }),
  usage: tokenUsageSchema,
  done: z.object({ message: chatMessageSchema }),
  error: z.object({
    code: z.enum(errorCodes),
    message: z.string(),
    requestId: z.string(),
    /** The assistant message as stored after the failure (partial or failed); null if none. */
    assistant: z.nullable(chatMessageSchema),
    /** For `model_busy`: how long the model asked us to wait. */
    retryAfterSeconds: z.optional(z.int().check(z.positive())),
  }),
} as const
export type ChatStreamEventName = keyof typeof chatStreamEventSchemas

/** `GET /api/assistant/usage` and `data` of the `assistant.usage` live event. */
export const usageSchema = z.object({
  /** Tokens settled this month. */
  used: z.int().check(z.nonnegative()),
  /** Tokens held for answers still streaming. */
  reserved: z.int().check(z.nonnegative()),
  limit: z.int().check(z.nonnegative()),
  /** The month the numbers are for (ISO 8601 start and end, UTC). */
  periodStart: z.string(),
  periodEnd: z.string(),
  /**
   * In a team workspace, `used`, `reserved` and `limit` are the member's own (the limit being what
   * their cap and the pool still allow them), and these say both sides.
   */
  workspace: z.optional(z.object({ id: z.string(), name: z.string() })),
  member: z.optional(
    z.object({
      used: z.int().check(z.nonnegative()),
      reserved: z.int().check(z.nonnegative()),
      cap: z.nullable(z.int().check(z.nonnegative())),
    }),
  ),
  pool: z.optional(
    z.object({
      used: z.int().check(z.nonnegative()),
      reserved: z.int().check(z.nonnegative()),
      limit: z.int().check(z.nonnegative()),
    }),
  ),
})
export type Usage = z.infer<typeof usageSchema>

export * from './assistant-usage.ts'
export * from './assistant-search.ts'
export * from './assistant-share.ts'
