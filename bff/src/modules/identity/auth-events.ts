import { AUTH_EVENT_TYPE } from '@tessera/contracts'
import type { AuthEventName, MeUser } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventHub, Topic } from '../events/event-hub.ts'

/** The topic of every tab of every session of one user. */
export const userTopic = (userId: string): Topic => `user:${userId}`

export interface AuthEvents {
  /**
   * Tells every tab of the user (on every device). `sessionId` names the session the event is
   * about, null for the whole account; a tab of another session takes it as news of another
   * device.
   */
  publish(
    userId: string,
    event: AuthEventName,
    about: { sessionId: string | null; user: MeUser | null },
  ): void
}

/** Publishes auth events (`type: 'auth'`) on the live event hub. */
export function createAuthEvents(hub: EventHub, clock: Clock): AuthEvents {
  return {
    publish(userId, event, { sessionId, user }) {
      hub.publish({
        topic: userTopic(userId),
        event: createLiveEvent(AUTH_EVENT_TYPE, { event, sessionId, user }, clock),
      })
    },
  }
}
