import { z } from 'zod/mini'

/** A live event from `GET /api/events`, as the platform hands it to plugins. */
export const liveEventSchema = z.object({
  id: z.string(),
  type: z.string().check(z.minLength(1)),
  at: z.string(),
  data: z.unknown(),
})
export type LiveEvent = z.infer<typeof liveEventSchema>

/** The SSE event name the BFF uses for every platform event (heartbeats use `ping`). */
export const LIVE_EVENT_NAME = 'tessera'

/**
 * The type of the live event that tells a page its stream could not be resumed (the events it
 * missed are older than the retention window, or unknown): it should re-read what it shows
 * (`GET /api/me`, `GET /api/remotes`) instead of waiting for the events it missed.
 */
export const RESYNC_EVENT_TYPE = 'resync'

/**
 * The header of `GET /api/me` that says where the live events stood when the session was read (an
 * SSE id). A page that opens its stream from there (`lastEventId`) gets every event published
 * after that read, even those published before the stream opened. Absent where the BFF keeps no
 * log of its events (tests without a database).
 */
export const EVENTS_POSITION_HEADER = 'Tessera-Events-Position'

/** The `resync` event's data: the position the stream could not be resumed from. */
export const resyncEventDataSchema = z.object({
  lastEventId: z.string(),
})
export type ResyncEventData = z.infer<typeof resyncEventDataSchema>
