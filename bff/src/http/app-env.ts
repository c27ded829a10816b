import type { ActiveSession } from '../modules/identity/sessions.ts'

/** What a request knows about its session; set on every request as `c.var.auth`. */
export interface RequestAuth {
  /** The request's session, loaded (and refreshed when due) on first use; null when signed out. */
  current(): Promise<ActiveSession | null>
  /** The request's session; `unauthenticated`, or `session_revoked` for a revoked one. */
  require(): Promise<ActiveSession>
  /**
   * Why the cookie names no usable session: `revoked` (signed out from elsewhere) or `expired`;
   * null with no cookie, an unknown one, or a session in use.
   */
  ended(): Promise<'revoked' | 'expired' | null>
  /** Gives the browser the cookie of a new session. */
  signIn(token: string): void
  /** Removes the session cookie from the browser. */
  signOut(): void
}

/** The Hono environment shared by the app and every sub-app and middleware. */
export interface AppEnv {
  Variables: {
    /** Set by the request-id middleware before anything else runs. */
    requestId: string
    /** Set by the session-cookie middleware on every /api request. */
    auth: RequestAuth
    /** Set on event-stream requests (drain-hint.ts): whether the process is shutting down. */
    draining?: () => boolean
  }
}
