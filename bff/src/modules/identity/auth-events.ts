import { AUTH_EVENT_TYPE } from '@tessera/contracts'
import type { AuthEventName, MeUser, SignOutReason } from '@tessera/contracts'
import type { SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { Topic } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'

/** The topic of every tab of every session of one user. */
export const userTopic = (userId: string): Topic => `user:${userId}`

export interface AuthEvents {
  /**
   * Tells every tab of the user (on every device). `sessionId` names the session the event is
   * about, null for the whole account; a tab of another session takes it as news of another
   * device. With `tx`, the event is written in that transaction (the change's own); without,
   * right after, in a statement of its own. Resolves once it is written.
   */
  publish(
    userId: string,
    event: AuthEventName,
    about: AuthEventAbout,
    tx?: SqlQueryable,
  ): Promise<void>
  /** `publish` for a change already made: a failure is logged, not thrown at the caller. */
  announce(userId: string, event: AuthEventName, about: AuthEventAbout): void
}

/** What an auth event is about; `reason` says why, for SIGNED_OUT. */
export interface AuthEventAbout {
  sessionId: string | null
  user: MeUser | null
  reason?: SignOutReason
}

/** Publishes auth events (`type: 'auth'`) on the live event bus. */
export function createAuthEvents(bus: EventBus, clock: Clock, logger?: Logger): AuthEvents {
  const publish: AuthEvents['publish'] = (userId, event, { sessionId, user, reason }, tx) =>
    bus.publish(
      {
        topic: userTopic(userId),
        event: createLiveEvent(
          AUTH_EVENT_TYPE,
          { event, sessionId, user, ...(reason === undefined ? {} : { reason }) },
          clock,
        ),
      },
      tx,
    )
  return {
    publish,
    announce(userId, event, about) {
      publish(userId, event, about).catch((error: unknown) => {
        logger?.error('auth event not published', { error, event, sessionId: about.sessionId })
      })
    },
  }
}
