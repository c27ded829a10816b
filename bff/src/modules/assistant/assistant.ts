import { ApiError, errorCatalogue } from '@tessera/contracts'
import type {
  AssistantModel,
  ChatMessage,
  ChatStreamEventName,
  Conversation,
  ErrorCode,
  TokenUsage,
  Usage,
} from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import type { EventHub } from '../events/event-hub.ts'
import { nextTurn } from '../../platform/next-turn.ts'
import { createRateLimiter } from '../../platform/rate-limiter.ts'
import type { EntitlementsForUser } from './entitlements.ts'
import { estimateCompletionTokens, estimatePromptTokens, reservationFor } from './estimate.ts'
import type { PromptMessage } from './estimate.ts'
import { modelFailureOf } from './model.ts'
import type { AnswerChunk, ChatModel } from './model.ts'
import { usagePeriodOf } from './period.ts'
import type { UsagePeriod } from './period.ts'
import { createQuota } from './quota.ts'
import type { Quota, UsageCounters } from './quota.ts'
import { createAssistantStore, titleFrom } from './store.ts'
import type { AnswerUsage, AssistantStore, ConversationCursor, FinishedAnswer } from './store.ts'
import { publishUsage, usageOf } from './usage-events.ts'

export interface AssistantSettings {
  moderation: boolean
  firstTokenTimeoutMs: number
  idleTimeoutMs: number
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
  hub: EventHub
  clock: Clock
  logger: Logger
  settings: AssistantSettings
}

/** Who is sending: the session's user and the claims their data is read with. */
export interface Sender {
  userId: string
  claims: UserClaims
}

/** Where an answer's events go: the SSE stream of the request. */
export interface AnswerSink {
  send(event: ChatStreamEventName, data: unknown): Promise<void>
  /** The browser went away (closed the page, pressed Stop). */
  readonly gone: boolean
  onGone(listener: () => void): void
}

/** A send that passed every check and holds its tokens: ready to stream. */
export interface PreparedSend {
  sender: Sender
  requestId: string
  conversationId: string
  /** The conversation as found; `title` null until its first message (or its user) names it. */
  conversation: Omit<Conversation, 'title'> & { title: string | null }
  /** The title the message gives an untitled conversation. */
  title: string
  content: string
  model: AssistantModel
  messages: PromptMessage[]
  reservation: { id: string; tokens: number; counters: UsageCounters }
  period: UsagePeriod
  limit: number
}

/** Tells the model who it is; short, so it costs little on every send. */
export const SYSTEM_PROMPT =
  'You are the Tessera assistant. Answer clearly and concisely, in Markdown when it helps.'

/** Why the BFF ended the model's request: the browser left, a timeout, or the send could not be stored. */
type StopReason = 'browser' | 'first_token' | 'idle' | 'not_stored'

/** How an answer ended, before it is stored. */
interface Outcome {
  status: FinishedAnswer['status']
  errorCode: ErrorCode | null
  usage: AnswerUsage | null
  retryAfterSeconds?: number
}

/** The longest a send's messages wait for the first token before they are written anyway. */
const STORE_AFTER_MS = 250

const noUsage: TokenUsage = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  estimated: false,
}

/**
 * The assistant: conversations, and sends that stream the model's answer while holding their
 * tokens against the plan (docs/decisions/008).
 */
export function createAssistant(deps: AssistantDeps) {
  const { sql, model, hub, clock, logger, settings } = deps
  const store: AssistantStore = createAssistantStore(sql)
  const quota: Quota = createQuota(sql)
  const limiter = createRateLimiter({ limit: settings.ratePerMinute, windowMs: 60_000, clock })

  const announce = (sender: Sender, counters: UsageCounters, limit: number, period: UsagePeriod) =>
    publishUsage(hub, clock, sender.userId, usageOf(counters, limit, period))

  /** The estimate used when the model's usage report never came. */
  const estimateUsage = (prepared: PreparedSend, text: string, chunks: number): AnswerUsage => ({
    promptTokens: estimatePromptTokens(prepared.messages),
    completionTokens: estimateCompletionTokens(text, chunks),
    estimated: true,
  })

  /**
   * Finds the conversation and holds the send's tokens: everything a send needs but moderation.
   * The history is read (as the user) while the hold is taken (the quota reads the same history
   * for its bound), not one after the other: both are on the way to the first token.
   */
  async function hold(
    sender: Sender,
    input: { conversationId: string; content: string; requestId: string },
  ): Promise<PreparedSend> {
    const period = usagePeriodOf(clock.now())
    const bounds = { messages: settings.historyMessages, chars: settings.historyChars }
    const system: PromptMessage = { role: 'system', content: SYSTEM_PROMPT }
    const question: PromptMessage = { role: 'user', content: input.content }
    const entitled = deps.entitlementsForUser(sender.claims)
    const loading = store.loadForSend(sender.claims, input.conversationId, bounds)
    const reserving = entitled.then((entitlements) =>
      quota.reserve({
        userId: sender.userId,
        period,
        limit: entitlements.monthlyTokens,
        tokens: reservationFor([system, question], settings.maxAnswerTokens),
        history: { conversationId: input.conversationId, bounds },
      }),
    )
    const [entitlements, loaded, reserved] = await Promise.allSettled([
      entitled,
      loading,
      reserving,
    ])
    // Whatever else failed, a hold that was taken is given back.
    const taken = reserved.status === 'fulfilled' && reserved.value.ok ? reserved.value : null
    const refuse = async (error: unknown): Promise<never> => {
      if (taken !== null) await releaseHold(taken.id, input.requestId)
      throw error
    }
    if (entitlements.status === 'rejected') return refuse(entitlements.reason)
    if (loaded.status === 'rejected') return refuse(loaded.reason)
    if (loaded.value === null) return refuse(new ApiError('not_found'))
    if (reserved.status === 'rejected') throw reserved.reason
    const messages: PromptMessage[] = [system, ...loaded.value.history, question]
    const limit = entitlements.value.monthlyTokens
    const tokens = reservationFor(messages, settings.maxAnswerTokens)
    let reservation = reserved.value
    if (reservation.ok && reservation.tokens < tokens) {
      // The history grew between the two reads (a send from another tab): hold what is sent.
      await releaseHold(reservation.id, input.requestId)
      reservation = await quota.reserve({ userId: sender.userId, period, limit, tokens })
    }
    if (!reservation.ok) {
      throw new ApiError('quota_exceeded', {
        details: { ...usageOf(reservation.counters, limit, period), requested: tokens },
      })
    }
    return {
      sender,
      requestId: input.requestId,
      conversationId: input.conversationId,
      conversation: loaded.value.conversation,
      title: titleFrom(input.content),
      content: input.content,
      model: entitlements.value.defaultModel,
      messages,
      reservation: {
        id: reservation.id,
        tokens: reservation.tokens,
        counters: reservation.counters,
      },
      period,
      limit,
    }
  }

  /**
   * Checks a send and holds its tokens, or refuses it: `rate_limited`, `not_found`,
   * `content_flagged` (or the moderation server's failure), `quota_exceeded`, in that order.
   * Moderation is a network round trip, so the database work runs meanwhile; nothing reaches the
   * model before both are done, and a hold taken for a flagged message is released unused.
   */
  async function prepareSend(
    sender: Sender,
    input: { conversationId: string; content: string; requestId: string },
  ): Promise<PreparedSend> {
    const decision = limiter.hit(sender.userId)
    if (!decision.allowed) {
      throw new ApiError('rate_limited', {
        details: { retryAfterSeconds: decision.retryAfterSeconds },
      })
    }
    // Moderation is the longest of the two (a round trip to another service): it starts first,
    // and its request is on the wire before the hold's statements are built. (The SDK takes a few
    // turns of promises to send it; this thread would spend them on the database work first.)
    const moderating = settings.moderation ? model.moderate(input.content) : Promise.resolve(false)
    if (settings.moderation) await nextTurn()
    const [flagged, held] = await Promise.allSettled([moderating, hold(sender, input)])
    const quotaRefusal = held.status === 'rejected' && isQuotaRefusal(held.reason)
    if (held.status === 'rejected' && !quotaRefusal) throw held.reason
    const refusal =
      flagged.status === 'rejected'
        ? moderationFailure(flagged.reason, input.requestId)
        : flagged.value
          ? new ApiError('content_flagged')
          : null
    if (refusal !== null) {
      if (held.status === 'fulfilled')
        await releaseHold(held.value.reservation.id, held.value.requestId)
      throw refusal
    }
    if (held.status === 'rejected') throw held.reason
    const prepared = held.value
    announce(sender, prepared.reservation.counters, prepared.limit, prepared.period)
    return prepared
  }

  /** Gives back a hold nothing was sent for. */
  async function releaseHold(reservationId: string, requestId: string): Promise<void> {
    try {
      await quota.settle(reservationId, 0)
    } catch (error) {
      // The stale sweep gives it back later; the refusal itself still stands.
      logger.error('could not release a hold', { error, requestId })
    }
  }

  function moderationFailure(error: unknown, requestId: string): ApiError {
    const failure = modelFailureOf(error)
    logger[failure.misconfigured ? 'error' : 'warn']('moderation failed', { error, requestId })
    return new ApiError(failure.code, {
      ...(failure.retryAfterSeconds === undefined
        ? {}
        : { details: { retryAfterSeconds: failure.retryAfterSeconds } }),
    })
  }

  /** Counts what the answer used, releases the rest of its hold, and tells the user's tabs. */
  async function settle(prepared: PreparedSend, usage: AnswerUsage | null): Promise<void> {
    const charge = usage === null ? 0 : usage.promptTokens + usage.completionTokens
    try {
      const counters = await quota.settle(prepared.reservation.id, charge)
      if (counters !== null) announce(prepared.sender, counters, prepared.limit, prepared.period)
    } catch (error) {
      // The hold stays until the stale sweep releases it; the answer itself is not affected.
      logger.error('could not settle an answer’s tokens', {
        error,
        requestId: prepared.requestId,
        reservationId: prepared.reservation.id,
      })
    }
  }

  /**
   * Streams the answer of a prepared send into `sink`, and always ends it: the answer stored
   * (complete, partial or failed), the hold settled, a last `done` or `error` event.
   */
  async function runSend(prepared: PreparedSend, sink: AnswerSink): Promise<void> {
    try {
      await streamAnswer(prepared, sink)
    } catch (error) {
      // A bug, not a model failure: the hold is released (settling is idempotent) and the
      // browser hears of it rather than waiting on a stream that never ends.
      logger.error('an answer failed', { error, requestId: prepared.requestId })
      await settle(prepared, null)
      await sendError(sink, { code: 'internal', requestId: prepared.requestId, assistant: null })
    }
  }

  async function streamAnswer(prepared: PreparedSend, sink: AnswerSink): Promise<void> {
    const { sender, requestId } = prepared
    const upstream = new AbortController()
    let stopReason: StopReason | null = null
    // Once the model's stream has ended, a browser leaving no longer changes how it ended.
    let streamed = false
    const stop = (reason: StopReason) => {
      if (streamed || upstream.signal.aborted) return
      stopReason = reason
      upstream.abort()
    }
    sink.onGone(() => stop('browser'))
    let timer = setTimeout(() => stop('first_token'), settings.firstTokenTimeoutMs)
    const rearm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => stop('idle'), settings.idleTimeoutMs)
    }

    const answering = model.answer(
      {
        model: prepared.model,
        messages: prepared.messages,
        maxAnswerTokens: settings.maxAnswerTokens,
      },
      upstream.signal,
    )
    // Awaited below; until then a refusal must not count as unhandled.
    answering.catch(() => undefined)

    // The messages' ids and time are made here, when the send was taken; they are written once the
    // first token is on its way (or the answer ended, or the model is slow to start): writing them
    // sooner would hold up that token, as an embedded database works on this thread.
    const opening = openingOf(prepared, new Date(clock.now()))
    let storeFailure: unknown = null
    let storing: Promise<boolean> | null = null
    const startStoring = (): Promise<boolean> => {
      clearTimeout(storeTimer)
      storing ??= store
        .beginSend(sender.claims, {
          conversationId: prepared.conversationId,
          title: prepared.title,
          user: opening.user,
          assistant: opening.assistant,
        })
        .then(
          () => true,
          (error: unknown) => {
            storeFailure = error
            stop('not_stored')
            return false
          },
        )
      return storing
    }
    const storeTimer = setTimeout(() => {
      sendOpening()
      void startStoring()
    }, STORE_AFTER_MS)

    let text = ''
    let chunks = 0
    let opened = false
    let reported: AnswerUsage | null = null
    let finishReason: string | null = null
    let failure: unknown = null
    // Text waiting for the browser: a write in progress collects what arrives meanwhile into the
    // next event, so a slow connection (or a busy process) gets fewer, larger deltas.
    let pending = ''
    // The stream opens with the send's messages, in the same write as the first token (one write
    // on the way to it, not two), or when they are stored if the model is slow to start, or when
    // the answer ends without a token (decision 013).
    let writes: Promise<void> = Promise.resolve()
    let openingSent = false
    const sendOpening = () => {
      if (openingSent) return
      openingSent = true
      writes = writes.then(() => sink.send('message', opening))
    }
    let queued = false
    let deltas = 0
    const flush = (): Promise<void> => {
      sendOpening()
      if (!queued) {
        queued = true
        writes = writes.then(async () => {
          // After the first delta, a write waits out this turn of the event loop: the chunks
          // that came in one read from the model go out as one event, not an event each.
          if (deltas > 0) await nextTurn()
          // Text that arrives from here on is taken by this write, or queues the next one.
          queued = false
          while (pending !== '' && !sink.gone) {
            const delta = pending
            pending = ''
            deltas += 1
            await sink.send('delta', { text: delta })
          }
        })
      }
      return writes
    }
    try {
      const stream: AsyncIterable<AnswerChunk> = await answering
      opened = true
      for await (const chunk of stream) {
        if (chunk.usage !== null) reported = { ...chunk.usage, estimated: false }
        if (chunk.finishReason !== null) finishReason = chunk.finishReason
        if (chunk.text !== '') {
          text += chunk.text
          chunks += 1
          rearm()
          pending += chunk.text
          void flush()
          if (chunks === 1) {
            // The first token leaves before anything else is read: Node sends a response's writes
            // when the current run of JavaScript ends, and that run would otherwise go on through
            // every chunk that came with it (and the messages' insert) first (decision 012).
            await nextTurn()
            void startStoring()
          }
        } else if (chunks > 0) {
          rearm()
        }
      }
    } catch (error) {
      failure = error
    } finally {
      streamed = true
      clearTimeout(timer)
    }
    await flush()
    const stored = await startStoring()

    const outcome = outcomeOf({ stopReason, failure, opened, finishReason, text, chunks, reported })
    if (outcome.errorCode !== null && stopReason === null) {
      const misconfigured = failure !== null && !opened && modelFailureOf(failure).misconfigured
      logger[misconfigured ? 'error' : 'warn']('the model’s answer failed', {
        code: outcome.errorCode,
        error: failure,
        requestId,
      })
    }

    let message: ChatMessage | null = null
    if (stored) {
      try {
        message = await store.finishAnswer(sender.claims, opening.assistant.id, {
          content: text,
          status: outcome.status,
          usage: outcome.usage,
          errorCode: outcome.errorCode,
        })
      } catch (error) {
        logger.error('could not store an answer', { error, requestId })
      }
    } else if (!(storeFailure instanceof ApiError)) {
      logger.error('could not store a send', { error: storeFailure, requestId })
    }
    await settle(prepared, outcome.usage)
    if (sink.gone) return
    await sink.send('usage', tokenUsageOf(outcome.usage) ?? noUsage)
    if (outcome.errorCode === null) {
      // Deleted meanwhile (or not updated): the browser still gets the answer as it ended.
      await sink.send('done', { message: message ?? answered(opening.assistant, text, outcome) })
    } else {
      await sendError(sink, {
        code: outcome.errorCode,
        requestId,
        assistant:
          storeFailure === null ? (message ?? answered(opening.assistant, text, outcome)) : null,
        ...(outcome.retryAfterSeconds === undefined
          ? {}
          : { retryAfterSeconds: outcome.retryAfterSeconds }),
      })
    }

    function outcomeOf(state: {
      stopReason: StopReason | null
      failure: unknown
      opened: boolean
      finishReason: string | null
      text: string
      chunks: number
      reported: AnswerUsage | null
    }): Outcome {
      const got = state.text !== ''
      // What arrived is counted; an answer that brought nothing is not.
      const usage = got
        ? (state.reported ?? estimateUsage(prepared, state.text, state.chunks))
        : null
      const partialOr = (errorCode: ErrorCode): Outcome => ({
        status: got ? 'partial' : 'failed',
        errorCode,
        usage,
      })
      // Stopped: kept as far as it came (nothing, if the first token had not come yet).
      if (state.stopReason === 'browser') return { status: 'partial', errorCode: null, usage }
      // Not stored (the conversation was deleted meanwhile): whatever the model did, the send
      // failed, and what arrived is counted.
      if (storeFailure !== null)
        return partialOr(storeFailure instanceof ApiError ? storeFailure.code : 'internal')
      if (state.stopReason === 'first_token' || state.stopReason === 'idle')
        return partialOr('upstream_timeout')
      if (state.failure !== null) {
        if (state.opened) return partialOr('answer_interrupted')
        const failure = modelFailureOf(state.failure)
        return {
          ...partialOr(failure.code),
          ...(failure.retryAfterSeconds === undefined
            ? {}
            : { retryAfterSeconds: failure.retryAfterSeconds }),
        }
      }
      // The stream ended without saying it was finished: a connection closed early.
      if (state.finishReason === null) return partialOr('answer_interrupted')
      return {
        status: 'complete',
        errorCode: null,
        usage: state.reported ?? estimateUsage(prepared, state.text, state.chunks),
      }
    }
  }

  return {
    store,
    quota,
    prepareSend,
    runSend,

    createConversation: (sender: Sender, title: string | null) =>
      store.createConversation(sender.claims, title),
    listConversations: (
      sender: Sender,
      page: { limit: number; cursor: ConversationCursor | null },
    ) => store.listConversations(sender.claims, page),
    renameConversation: (sender: Sender, id: string, title: string) =>
      store.renameConversation(sender.claims, id, title),
    deleteConversation: (sender: Sender, id: string) => store.deleteConversation(sender.claims, id),
    listMessages: (sender: Sender, id: string) => store.listMessages(sender.claims, id),

    /** The user's usage this month, with the plan's limit. */
    async usage(sender: Sender): Promise<Usage> {
      const period = usagePeriodOf(clock.now())
      const [entitlements, counters] = await Promise.all([
        deps.entitlementsForUser(sender.claims),
        quota.read(sender.claims, period),
      ])
      return usageOf(counters, entitlements.monthlyTokens, period)
    },
  }
}

export type Assistant = ReturnType<typeof createAssistant>

/** The two messages of a send as they are being stored, and the conversation they go in. */
function openingOf(prepared: PreparedSend, at: Date) {
  const createdAt = at.toISOString()
  const base = { usage: null, error: null, createdAt }
  const user: ChatMessage = {
    ...base,
    id: crypto.randomUUID(),
    role: 'user',
    content: prepared.content,
    status: 'complete',
    model: null,
  }
  const assistant: ChatMessage = {
    ...base,
    id: crypto.randomUUID(),
    role: 'assistant',
    content: '',
    status: 'streaming',
    model: prepared.model,
  }
  const conversation: Conversation = {
    ...prepared.conversation,
    title: prepared.conversation.title ?? prepared.title,
    updatedAt: createdAt,
  }
  return { user, assistant, conversation }
}

/** The assistant message as stored at the end, for when the stored copy cannot be read back. */
function answered(placeholder: ChatMessage, text: string, outcome: Outcome): ChatMessage {
  return {
    ...placeholder,
    content: text,
    status: outcome.status,
    usage: tokenUsageOf(outcome.usage),
    error:
      outcome.errorCode === null
        ? null
        : { code: outcome.errorCode, message: errorCatalogue[outcome.errorCode].message },
  }
}

function isQuotaRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'quota_exceeded'
}

function tokenUsageOf(usage: AnswerUsage | null): TokenUsage | null {
  return usage === null
    ? null
    : {
        promptTokens: usage.promptTokens,
        completionTokens: usage.completionTokens,
        totalTokens: usage.promptTokens + usage.completionTokens,
        estimated: usage.estimated,
      }
}

async function sendError(
  sink: AnswerSink,
  error: {
    code: ErrorCode
    requestId: string
    assistant: ChatMessage | null
    retryAfterSeconds?: number
  },
): Promise<void> {
  if (sink.gone) return
  await sink.send('error', { ...error, message: errorCatalogue[error.code].message })
}
