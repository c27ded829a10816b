/**
 * Stop from any tab, on any replica (docs/decisions/032). Since a tab that goes away (a reload,
 * a closed page) no longer stops the answer it started, Stop is a request of its own: it is
 * published on the user's live topic, and the replica streaming an answer in that conversation
 * hears it on its hub and stops the model.
 */
import { ApiError } from '@tessera/contracts'
import { ANSWER_STOP_EVENT_TYPE, answerStopSchema } from '@tessera/contracts/assistant-live'
import type { AnswerStop } from '@tessera/contracts/assistant-live'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { withUser } from '../../platform/db/with-user.ts'
import { userTopic } from '../identity/auth-events.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventHub } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import { readOnly } from './conversation-sharing.ts'
import type { Sender } from './send.ts'

/**
 * Asks every replica to stop the answers streaming in the sender's conversation; returns how many
 * were streaming. `not_found` when the caller cannot see it, `conversation_read_only` when it is
 * another member's shared conversation.
 */
export function requestStop(
  deps: { sql: Sql; bus: EventBus; clock: Clock },
  sender: Sender,
  conversationId: string,
): Promise<number> {
  return withUser(deps.sql, sender.claims, async (tx) => {
    const { rows } = await tx.query<{ owned: boolean; streaming: number }>(
      `select c.user_id = $2 as owned,
         (select count(*)::int from public.assistant_messages m
           where m.conversation_id = c.id and m.status = 'streaming') as streaming
       from public.assistant_conversations c where c.id = $1`,
      [conversationId, sender.userId],
    )
    const row = rows[0]
    if (row === undefined) throw new ApiError('not_found')
    if (!row.owned) throw readOnly()
    if (row.streaming > 0) {
      const stop: AnswerStop = { conversationId }
      const event = createLiveEvent(ANSWER_STOP_EVENT_TYPE, stop, deps.clock)
      await deps.bus.publish({ topic: userTopic(sender.userId), event }, tx)
    }
    return row.streaming
  })
}

/**
 * Calls `onStop` when a stop of `conversationId` is published for `userId` (on this replica's
 * hub, which hears every replica); returns the function that stops listening.
 */
export function onStopRequest(
  hub: EventHub | undefined,
  userId: string,
  conversationId: string,
  onStop: () => void,
): () => void {
  if (hub === undefined) return () => undefined
  return hub.subscribe({
    topics: [userTopic(userId)],
    onEvent(event) {
      if (event.type !== ANSWER_STOP_EVENT_TYPE) return
      const stop = answerStopSchema.safeParse(event.data)
      if (stop.success && stop.data.conversationId === conversationId) onStop()
    },
  })
}
