import type { RequestAuth } from './middleware/session.ts'

/** The Hono environment shared by the app and every sub-app and middleware. */
export interface AppEnv {
  Variables: {
    /** Set by the request-id middleware before anything else runs. */
    requestId: string
    /** Set by the session-cookie middleware on every /api request. */
    auth: RequestAuth
  }
}
