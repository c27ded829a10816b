import { z } from 'zod'

/** A live event from `GET /api/events`, as the platform hands it to plugins. */
export const liveEventSchema = z.object({
  id: z.string(),
  type: z.string().min(1),
  at: z.string(),
  data: z.unknown(),
})
export type LiveEvent = z.infer<typeof liveEventSchema>

/** The SSE event name the BFF uses for every platform event (heartbeats use `ping`). */
export const LIVE_EVENT_NAME = 'tessera'
