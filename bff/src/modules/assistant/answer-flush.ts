/**
 * Keeps an answer that is streaming readable by every tab of its user, whichever replica streams
 * it (docs/decisions/032): every FLUSH_EVERY_MS the text so far is written to the answer's row
 * and, in the same statement, the new text is published on the user's live topic with its
 * character offset. A tab that opens the conversation reads the row and extends it with the
 * batches after it; one that was open already applies each batch once.
 */
import { ANSWER_DELTA_EVENT_TYPE, ANSWER_DONE_EVENT_TYPE } from '@tessera/contracts/assistant-live'
import type { AnswerDelta, AnswerDone } from '@tessera/contracts/assistant-live'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import type { Sender } from './send.ts'

/** How long an answer's text gathers before it is stored and published (ms). */
export const FLUSH_EVERY_MS = 200

/** The row takes the text only while the answer is still `streaming`: never over its end. */
const flushStatement = `update public.assistant_messages set content = $1
  where id = $2 and user_id = $3 and status = 'streaming'`

export interface AnswerFlusher {
  /** The answer's whole text so far: stored and published with the next batch. */
  update(text: string): void
  /** Ends the batches: waits for the one being written, and writes no more. */
  close(): Promise<void>
  /** How many batches were written (for the benchmark's write cost). */
  readonly batches: number
}

export function createAnswerFlusher(options: {
  sql: Sql
  bus: EventBus
  clock: Clock
  logger: Logger
  sender: Sender
  conversationId: string
  messageId: string
  everyMs?: number
}): AnswerFlusher {
  const { sql, bus, clock, logger, sender, conversationId, messageId } = options
  const everyMs = options.everyMs ?? FLUSH_EVERY_MS
  let text = ''
  let stored = 0
  let batches = 0
  let closed = false
  let timer: ReturnType<typeof setTimeout> | null = null
  let writing: Promise<void> = Promise.resolve()

  const write = async (): Promise<void> => {
    timer = null
    if (closed || text.length === stored) return
    const delta: AnswerDelta = {
      conversationId,
      messageId,
      offset: stored,
      text: text.slice(stored),
    }
    const event = createLiveEvent(ANSWER_DELTA_EVENT_TYPE, delta, clock)
    const upTo = text.length
    try {
      // The batch is published only if the row took it, in the same transaction.
      await withUser(sql, sender.claims, async (tx) => {
        const { rowCount } = await tx.query(flushStatement, [
          text.slice(0, upTo),
          messageId,
          sender.userId,
        ])
        if (rowCount > 0) await bus.publish({ topic: userTopic(sender.userId), event }, tx)
      })
      stored = upTo
      batches += 1
    } catch (error) {
      // The next batch carries this one's text too (its offset is where the row stops).
      logger.warn('an answer’s text so far was not stored', { error, messageId })
    }
  }

  return {
    update(next) {
      text = next
      if (closed || timer !== null) return
      timer = setTimeout(() => {
        writing = writing.then(write)
      }, everyMs)
      // A batch waiting must not keep a process alive on its own.
      timer.unref?.()
    },
    async close() {
      closed = true
      if (timer !== null) clearTimeout(timer)
      timer = null
      await writing
    },
    get batches() {
      return batches
    },
  }
}

/**
 * Publishes the answer as stored at its end, in the transaction that stores it (`tx`), so every
 * tab that followed it replaces what it gathered with the stored text, once.
 */
export async function publishAnswerDone(
  deps: { bus: EventBus; clock: Clock },
  userId: string,
  done: AnswerDone,
  tx: SqlQueryable,
): Promise<void> {
  const event = createLiveEvent(ANSWER_DONE_EVENT_TYPE, done, deps.clock)
  await deps.bus.publish({ topic: userTopic(userId), event }, tx)
}
