/**
 * Streams the model's answer to a prepared send (decisions 012 and 013) and always ends it: the
 * answer stored (complete, partial or failed) and its tokens counted in one transaction, or, when
 * it cannot be stored, its hold released uncharged; then a last `done` or `error` event.
 */
import { errorCatalogue } from '@tessera/contracts'
import type { ChatMessage, ErrorCode, TokenUsage } from '@tessera/contracts'
import { nextTurn } from '../../platform/next-turn.ts'
import { createAnswerFlusher, publishAnswerDone } from './answer-flush.ts'
import { onStopRequest } from './answer-stop.ts'
import { estimateCompletionTokens, estimatePromptTokens } from './estimate.ts'
import { modelFailureOf } from './model.ts'
import type { AnswerChunk } from './model.ts'
import { MAX_ANSWER_MS } from './quota.ts'
import type { Quota, UsageCounters } from './quota.ts'
import { askModel } from './send.ts'
import type { AnswerSink, AssistantDeps, PreparedSend, Sender } from './send.ts'
import type { UsagePeriod } from './period.ts'
import type { AnswerUsage, AssistantStore, FinishedAnswer } from './store.ts'

/**
 * Why the BFF ended the model's request: the browser left before it learned of the answer, Stop
 * (from any tab: answer-stop.ts), or a timeout.
 */
type StopReason = 'browser' | 'person' | 'first_token' | 'idle' | 'too_long'

/** How an answer ended, before it is stored. */
interface Outcome {
  status: FinishedAnswer['status']
  errorCode: ErrorCode | null
  usage: AnswerUsage | null
  retryAfterSeconds?: number
}

/** The longest the stream's opening event waits for the first token to share its write. */
const OPENING_AFTER_MS = 250

const noUsage: TokenUsage = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  estimated: false,
}

export function createAnswerStream(
  deps: AssistantDeps & {
    store: AssistantStore
    quota: Quota
    releaseHold(reservationId: string, requestId: string): Promise<void>
    announce(sender: Sender, counters: UsageCounters, limit: number, period: UsagePeriod): void
  },
) {
  const { model, logger, settings, store, quota } = deps
  const maxAnswerMs = settings.maxAnswerMs ?? MAX_ANSWER_MS

  /** The estimate used when the model's usage report never came. */
  const estimateUsage = (prepared: PreparedSend, text: string, chunks: number): AnswerUsage => ({
    promptTokens: estimatePromptTokens(prepared.messages),
    completionTokens: estimateCompletionTokens(text, chunks),
    estimated: true,
  })

  /**
   * Stores how the answer ended and counts what it used in one transaction; when that fails,
   * the hold is given back and nothing is counted: nobody pays for an answer that is not kept.
   */
  async function keep(
    prepared: PreparedSend,
    answer: FinishedAnswer,
    stored: ChatMessage,
  ): Promise<{ stored: boolean; message: ChatMessage | null }> {
    const usage = answer.usage
    const charge = usage === null ? 0 : usage.promptTokens + usage.completionTokens
    try {
      const { message, settled } = await store.finishAnswer(
        prepared.sender.claims,
        prepared.opening.assistant.id,
        answer,
        async (tx) => {
          const settled = await quota.settle(prepared.reservation.id, charge, tx)
          // Every tab following the answer gets its stored end, with it (decision 032).
          await publishAnswerDone(
            deps,
            prepared.sender.userId,
            { conversationId: prepared.conversationId, message: stored },
            tx,
          )
          return settled
        },
      )
      if (settled !== null) deps.announce(prepared.sender, settled, prepared.limit, prepared.period)
      return { stored: true, message }
    } catch (error) {
      logger.error('could not store an answer; its tokens are not counted', {
        error,
        requestId: prepared.requestId,
      })
      await deps.releaseHold(prepared.reservation.id, prepared.requestId)
      return { stored: false, message: null }
    }
  }

  async function streamAnswer(prepared: PreparedSend, sink: AnswerSink): Promise<void> {
    const { requestId, opening } = prepared
    const { upstream, answer: answering } = askModel(model, settings, prepared)
    let stopReason: StopReason | null = null
    // Whether the browser has the answer's id (the stream's opening event): see onGone below.
    let openingSent = false
    // Once the model's stream has ended, a browser leaving no longer changes how it ended.
    let streamed = false
    const stop = (reason: StopReason) => {
      if (streamed || upstream.signal.aborted) return
      stopReason = reason
      upstream.abort()
    }
    // A tab that goes away once it has the answer's id (a reload, a second tab) can follow it
    // again: only Stop ends it then. Before, nobody could, and it ends as Stop would.
    sink.onGone(() => {
      if (!openingSent) stop('browser')
    })
    const stopListening = onStopRequest(
      deps.hub,
      prepared.sender.userId,
      prepared.conversationId,
      () => stop('person'),
    )
    const flusher = createAnswerFlusher({
      ...deps,
      sender: prepared.sender,
      conversationId: prepared.conversationId,
      messageId: opening.assistant.id,
    })
    let timer = setTimeout(() => stop('first_token'), settings.firstTokenTimeoutMs)
    const rearm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => stop('idle'), settings.idleTimeoutMs)
    }
    const cap = setTimeout(() => stop('too_long'), maxAnswerMs)

    let text = ''
    let chunks = 0
    let opened = false
    let reported: AnswerUsage | null = null
    let finishReason: string | null = null
    let failure: unknown = null
    // Text waiting for the browser: a write in progress collects what arrives meanwhile into the
    // next event, so a slow connection (or a busy process) gets fewer, larger deltas.
    let pending = ''
    // The stream opens with the send's stored messages, in the same write as the first token
    // (one write on the way to it, not two), or after OPENING_AFTER_MS if the model is slow to
    // start, or when the answer ends without a token (decision 013).
    let writes: Promise<void> = Promise.resolve()
    // The user's open pages hear of the hold once the opening (and the first token, when it came
    // with it) has been written, a turn of the event loop later: publishing is a database write,
    // and on the embedded database it is work on this thread, which the token would wait behind.
    // The answer's end is stored only after it (so the hold is never announced after its settling).
    let announced: Promise<void> = Promise.resolve()
    const sendOpening = () => {
      clearTimeout(openingTimer)
      if (openingSent) return
      openingSent = true
      writes = writes.then(() => sink.send('message', opening))
      const { reservation } = prepared
      announced = writes
        .catch(() => undefined)
        .then(nextTurn)
        .then(() =>
          deps.announce(prepared.sender, reservation.counters, prepared.limit, prepared.period),
        )
    }
    const openingTimer = setTimeout(sendOpening, OPENING_AFTER_MS)
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
          // The first token leaves before anything else is read: Node sends a response's writes
          // when the current run of JavaScript ends, and that run would otherwise go on through
          // every chunk that came with it first (decision 012).
          if (chunks === 1) await nextTurn()
          // Stored and published in batches, after the first token has left (decision 032).
          flusher.update(text)
        } else if (chunks > 0) {
          rearm()
        }
      }
    } catch (error) {
      failure = error
    } finally {
      streamed = true
      stopListening()
      clearTimeout(timer)
      clearTimeout(cap)
    }
    await flush()
    // The last batch is written before the end is stored (which no batch can overwrite).
    await flusher.close()
    await announced

    const outcome = outcomeOf({ stopReason, failure, opened, finishReason, text, chunks, reported })
    if (outcome.errorCode !== null && stopReason === null) {
      const misconfigured = failure !== null && !opened && modelFailureOf(failure).misconfigured
      logger[misconfigured ? 'error' : 'warn']('the model’s answer failed', {
        code: outcome.errorCode,
        error: failure,
        requestId,
      })
    }

    const kept = await keep(
      prepared,
      {
        content: text,
        status: outcome.status,
        usage: outcome.usage,
        errorCode: outcome.errorCode,
      },
      answered(opening.assistant, text, outcome),
    )
    if (sink.gone) return
    if (!kept.stored) {
      await sink.send('usage', noUsage)
      await sendError(sink, { code: 'internal', requestId, assistant: null })
      return
    }
    await sink.send('usage', tokenUsageOf(outcome.usage) ?? noUsage)
    // Deleted meanwhile (or not updated): the browser still gets the answer as it ended.
    const message = kept.message ?? answered(opening.assistant, text, outcome)
    if (outcome.errorCode === null) {
      await sink.send('done', { message })
    } else {
      await sendError(sink, {
        code: outcome.errorCode,
        requestId,
        assistant: message,
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
      if (state.stopReason === 'browser' || state.stopReason === 'person')
        return { status: 'partial', errorCode: null, usage }
      if (state.stopReason !== null) return partialOr('upstream_timeout')
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
    /**
     * Streams the answer of a prepared send into `sink`, and always ends it (see the module's
     * comment); a bug on the way still gives the hold back and tells the browser.
     */
    async runSend(prepared: PreparedSend, sink: AnswerSink): Promise<void> {
      try {
        await streamAnswer(prepared, sink)
      } catch (error) {
        logger.error('an answer failed', { error, requestId: prepared.requestId })
        await deps.releaseHold(prepared.reservation.id, prepared.requestId)
        await sendError(sink, { code: 'internal', requestId: prepared.requestId, assistant: null })
      }
    },
  }
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
