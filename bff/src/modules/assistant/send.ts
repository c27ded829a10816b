/** What one send is made of, from its checks (send-checks.ts) to its answer (answer-stream.ts). */
import type {
  AssistantModel,
  ChatMessage,
  ChatStreamEventName,
  Conversation,
} from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Limiters } from '../../platform/rate-limiter.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import type { EventHub } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import type { Attachments } from '../attachments/attachments.ts'
import type { SendBranch } from './branches.ts'
import type { EntitlementsForUser } from './entitlements.ts'
import type { PromptMessage } from './estimate.ts'
import type { AnswerChunk, ChatModel } from './model.ts'
import type { UsagePeriod } from './period.ts'
import type { UsageCounters } from './quota.ts'

export interface AssistantSettings {
  moderation: boolean
  firstTokenTimeoutMs: number
  idleTimeoutMs: number
  /** The longest an answer may stream (default MAX_ANSWER_MS); the BFF stops it there. */
  maxAnswerMs?: number
  /** A hold older than this belongs to a BFF that died mid-answer (default: quota.ts). */
  abandonedAfterMs?: number
  maxAnswerTokens: number
  historyMessages: number
  historyChars: number
  /** Sends per user per minute. */
  ratePerMinute: number
}

export interface AssistantDeps {
  sql: Sql
  model: ChatModel
  entitlementsForUser: EntitlementsForUser
  bus: EventBus
  /** This replica's hub, where a Stop published on any replica is heard (answer-stop.ts). */
  hub?: EventHub
  clock: Clock
  logger: Logger
  settings: AssistantSettings
  /** Where the send rate is counted: this process by default, or shared by the replicas. */
  limiters?: Limiters
  /** Files sent with messages; without it a send naming attachments is refused. */
  attachments?: Attachments
}

/** Who is sending: the session's user and the claims their data is read with. */
export interface Sender {
  userId: string
  claims: UserClaims
  /** The session, whose current workspace lists and new conversations are scoped to. */
  sessionId?: string
}

/** Where an answer's events go: the SSE stream of the request. */
export interface AnswerSink {
  send(event: ChatStreamEventName, data: unknown): Promise<void>
  /** The browser went away (closed the page, pressed Stop). */
  readonly gone: boolean
  onGone(listener: () => void): void
}

/** The two messages of a send as stored before the model is asked, and their conversation. */
export interface SendOpening {
  user: ChatMessage
  assistant: ChatMessage
  conversation: Conversation
}

/** A send that passed every check, holds its tokens and has its question stored: ready to stream. */
export interface PreparedSend {
  sender: Sender
  requestId: string
  conversationId: string
  content: string
  model: AssistantModel
  /** The plan sells "Priority answers": the answer waits in the paying plans' lane (model-lanes.ts). */
  priority?: boolean
  messages: PromptMessage[]
  reservation: { id: string; tokens: number; counters: UsageCounters }
  period: UsagePeriod
  limit: number
  /** The stored question and the answer's placeholder (`streaming`): the stream's first event. */
  opening: SendOpening
  /** The send rate's `RateLimit-Policy` and `RateLimit` fields, for the answer's response. */
  rateLimitHeaders?: Record<string, string>
  /** The attachments sent with the question, tied to it once it is stored. */
  attachmentIds?: string[]
  /** An edit or a regenerate (branches.ts): its messages hang beside the ones they replace. */
  branch?: SendBranch
}

/** A request to the model on its way: its stream once it opens, and how to end it. */
export interface AskedModel {
  upstream: AbortController
  answer: Promise<AsyncIterable<AnswerChunk>>
}

/** Asks the model for a prepared send's answer. */
export function askModel(
  model: ChatModel,
  settings: Pick<AssistantSettings, 'maxAnswerTokens'>,
  prepared: PreparedSend,
): AskedModel {
  const upstream = new AbortController()
  const answer = model.answer(
    {
      model: prepared.model,
      messages: prepared.messages,
      maxAnswerTokens: settings.maxAnswerTokens,
      priority: prepared.priority === true,
    },
    upstream.signal,
  )
  // Awaited by the answer's stream; until then a refusal must not count as unhandled.
  answer.catch(() => undefined)
  return { upstream, answer }
}

/** Tells the model who it is; short, so it costs little on every send. */
export const SYSTEM_PROMPT =
  'You are the Tessera assistant. Answer clearly and concisely, in Markdown when it helps.'

/** The two messages of a send, and the conversation they go in (named `title` if it had none). */
export function openingOf(
  input: {
    content: string
    model: AssistantModel
    conversation: Omit<Conversation, 'title'> & { title: string | null }
    title: string
  },
  at: Date,
): SendOpening {
  const createdAt = at.toISOString()
  const base = { usage: null, error: null, createdAt }
  const user: ChatMessage = {
    ...base,
    id: crypto.randomUUID(),
    role: 'user',
    content: input.content,
    status: 'complete',
    model: null,
  }
  const assistant: ChatMessage = {
    ...base,
    id: crypto.randomUUID(),
    role: 'assistant',
    content: '',
    status: 'streaming',
    model: input.model,
  }
  const conversation: Conversation = {
    ...input.conversation,
    title: input.conversation.title ?? input.title,
    updatedAt: createdAt,
    model: input.model,
  }
  return { user, assistant, conversation }
}
