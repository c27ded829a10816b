/**
 * When and how a session's Supabase tokens are refreshed (docs/decisions/003): one refresh at a
 * time per session, in one process or many. Requests of one process share a refresh in flight;
 * across processes a lease on the row decides who calls Auth, and the others wait for its result.
 */
import { ApiError } from '@tessera/contracts'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import type { AccessTokenVerifier } from './access-tokens.ts'
import { isSessionGone, toApiErrorFromAuth } from './auth-errors.ts'
import type { AuthGateway, AuthSession } from './auth-gateway.ts'
import type { ActiveSession, SessionStore } from './session-store.ts'

/** What a refresh found: the session (refreshed, or still usable) or that it was revoked. */
export type RefreshResult = { state: 'active'; session: ActiveSession } | { state: 'revoked' }

export interface SessionRefreshOptions {
  store: SessionStore
  auth: AuthGateway
  tokens: AccessTokenVerifier
  clock: Clock
  logger: Logger
  /** Refresh when the access token has less than this left. */
  marginMs: number
  /** How long one refresh may hold its claim before another request may take over. */
  leaseMs: number
  /** How long a request waits for another process's refresh when its own token has expired. */
  waitMs: number
  /** Sessions Auth says have ended are revoked here (and their tabs told). */
  revoke(ids: readonly string[]): Promise<unknown>
  /** A session's tokens changed here: cached copies are stale. */
  changed(session: ActiveSession): void
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export function createSessionRefresh(options: SessionRefreshOptions) {
  const { store, auth, tokens, clock, logger } = options
  // Requests of one process for one session share its refresh.
  const inflight = new Map<string, Promise<RefreshResult>>()

  const expiresSoon = (session: ActiveSession) =>
    session.tokens.expiresAt * 1000 - clock.now() < options.marginMs
  const stillValid = (session: ActiveSession) => session.tokens.expiresAt * 1000 > clock.now()

  /**
   * Claims the session's refresh lease, refreshes at Auth and stores the new tokens. No
   * transaction is held across the call to Auth: on PGlite that would lock out the Auth stand-in
   * sharing the database.
   */
  async function refreshNow(session: ActiveSession): Promise<RefreshResult> {
    const refreshToken = await store.claimRefresh(session.id, {
      leaseMs: options.leaseMs,
      marginMs: options.marginMs,
    })
    if (refreshToken === undefined) return afterOtherRefresh(session)

    let fresh: AuthSession
    try {
      fresh = await auth.refresh(refreshToken)
      await tokens.verify(fresh.accessToken)
    } catch (error) {
      if (isSessionGone(error)) {
        // Revoked elsewhere (another device signed out everywhere, a password change, reuse).
        logger.info('session ended by auth', { sessionId: session.id, reason: String(error) })
        await options.revoke([session.id])
        return { state: 'revoked' }
      }
      await store.releaseRefresh(session.id)
      if (stillValid(session)) {
        // The old token still works for a while: serve this request, try again on the next.
        logger.warn('token refresh failed; using the current token', {
          sessionId: session.id,
          error,
        })
        return { state: 'active', session }
      }
      throw toApiErrorFromAuth(error)
    }

    const saved = await store.saveRefreshed(session.id, fresh)
    if (saved === null) {
      // Revoked while Auth was answering: end the tokens just issued too.
      await auth.signOut(fresh.accessToken, 'local').catch((error: unknown) => {
        logger.warn('could not sign out a session revoked during its refresh', { error })
      })
      return { state: 'revoked' }
    }
    options.changed(saved)
    return { state: 'active', session: saved }
  }

  /** Another request (maybe in another process) holds the lease, or has just refreshed. */
  async function afterOtherRefresh(session: ActiveSession): Promise<RefreshResult> {
    const deadline = clock.now() + options.waitMs
    for (;;) {
      const row = await store.byId(session.id)
      const current = row === undefined ? null : store.toActive(row)
      if (current === null) return { state: 'revoked' }
      if (current.tokens.accessToken !== session.tokens.accessToken || !expiresSoon(current))
        return { state: 'active', session: current }
      // Not refreshed yet, but the token still works: no reason to make this request wait.
      if (stillValid(current)) return { state: 'active', session: current }
      const lease = row?.refresh_lease_until ?? null
      if (lease === null || lease.getTime() <= clock.now()) return refreshNow(current)
      if (clock.now() > deadline) throw new ApiError('upstream_unavailable')
      await pause(50)
    }
  }

  return {
    expiresSoon,
    stillValid,
    /** The session's refresh, shared by every request of this process that asks meanwhile. */
    refresh(session: ActiveSession): Promise<RefreshResult> {
      let flight = inflight.get(session.id)
      if (flight === undefined) {
        flight = refreshNow(session).finally(() => inflight.delete(session.id))
        inflight.set(session.id, flight)
      }
      return flight
    },
  }
}
