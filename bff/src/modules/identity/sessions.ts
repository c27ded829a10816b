/**
 * BFF sessions (DESIGN §5, docs/decisions/003): the browser holds an opaque cookie, Postgres holds
 * the user's Supabase tokens (`bff_sessions`, session-store.ts), and the BFF refreshes them itself,
 * one refresh at a time per session (session-refresh.ts). A session ends on the server after an
 * absolute lifetime or an idle timeout, whatever the cookie says.
 */
import { ApiError } from '@tessera/contracts'
import type { SignInMethod, SignOutReason } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { AuthUserSnapshot } from '../../platform/db/schema.ts'
import type { Logger } from '../../platform/logger.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import type { AccessTokenVerifier } from './access-tokens.ts'
import { isSessionGone } from './auth-errors.ts'
import type { CacheInvalidations } from '../events/cache-invalidation.ts'
import type { AuthEvents } from './auth-events.ts'
import type { AuthGateway, AuthSession, AuthTokens } from './auth-gateway.ts'
import { createSessionRefresh } from './session-refresh.ts'
import { createSessionStore } from './session-store.ts'
import type { ActiveSession, DeviceSessionRow } from './session-store.ts'
import { hashSessionToken, isSessionToken, newSessionToken } from './session-token.ts'

export type { ActiveSession, DeviceSessionRow } from './session-store.ts'

export type ResumeResult =
  | { state: 'active'; session: ActiveSession }
  /** The cookie names a session that was signed out or revoked. */
  | { state: 'revoked' }
  /** The session outlived its absolute lifetime or sat idle too long; it is revoked now. */
  | { state: 'expired' }
  /** The cookie is not one of ours (malformed, unknown, or from another database). */
  | { state: 'unknown' }

export interface StartContext {
  recovery: boolean
  method: SignInMethod
  userAgent?: string
  ip?: string
}

/** What a request tells about the session it uses. */
export interface ResumeContext {
  /** The client's address: stored with last_seen_at when that moves (no write of its own). */
  ip?: string | undefined
}

export interface Sessions {
  /** Keeps tokens Auth just issued (after verifying them); returns the new cookie value. */
  start(
    auth: AuthSession,
    context: StartContext,
  ): Promise<{ token: string; session: ActiveSession }>
  /** The session a cookie names, with its tokens refreshed when they are due. */
  resume(token: string, context?: ResumeContext): Promise<ResumeResult>
  /** One active session of a user, for revoking it. */
  find(userId: string, sessionId: string): Promise<ActiveSession | null>
  list(userId: string): Promise<DeviceSessionRow[]>
  /**
   * Signs one session out: at Auth (best effort; its refresh token is forgotten here either way),
   * then here. The user's tabs get SIGNED_OUT for it, with `reason` (default: it signed out).
   */
  revoke(session: ActiveSession, reason?: SignOutReason): Promise<void>
  /**
   * Marks sessions revoked that Auth has already ended (a global sign-out, a password change);
   * returns their ids. The user's tabs get SIGNED_OUT for each: `revoked`, but `signed_out` for
   * `by`, the session that asked.
   */
  revokeEnded(userId: string, options?: { except?: string; by?: string }): Promise<string[]>
  /** Stores the user as Auth now describes it on every active session of that user. */
  updateUser(user: AuthUserSnapshot): Promise<void>
  /** Stores tokens Auth rotated during another call (updateUser). */
  saveTokens(sessionId: string, tokens: AuthTokens): Promise<void>
  /** Ends the recovery state (a new password was set). */
  endRecovery(sessionId: string): Promise<void>
}

export interface SessionsOptions {
  sql: Sql
  auth: AuthGateway
  tokens: AccessTokenVerifier
  events: AuthEvents
  /**
   * Other replicas' changes to sessions (a revocation, a user update) drop this process's kept
   * copies at once instead of after `cacheMs`; without it, only this process's changes do.
   */
  invalidations?: CacheInvalidations
  clock: Clock
  logger: Logger
  /** Refresh when the access token has less than this left (more than supabase-js's 90 s). */
  refreshMarginMs: number
  /** last_seen_at is written at most this often per session. */
  touchIntervalMs: number
  /** How long a recovery link's session may set a password without the current one. */
  recoveryWindowMs: number
  /** A session ends this long after it started, however active (default 30 days). */
  absoluteLifetimeMs?: number
  /** A session ends when it was last seen longer ago than this (default 7 days). */
  idleTimeoutMs?: number
  /** How long one refresh may hold its claim before another request may take over. */
  refreshLeaseMs?: number
  /** How long a request waits for another process's refresh when its own token has expired. */
  refreshWaitMs?: number
  /**
   * How long a looked-up session is served from memory. Changes made through this process
   * (revocation, refresh, user update) apply at once; another process's show within this time.
   */
  cacheMs?: number
}

/** A request may go on with a token that has at least this long left while it is refreshed. */
const usableForMs = 10_000

const day = 24 * 3600 * 1000

/** Waits for `promise` at most `ms`; the work itself goes on (a refresh other requests share). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ApiError('upstream_timeout')), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export function createSessions(options: SessionsOptions): Sessions {
  const { sql, auth, tokens, events, clock, logger } = options
  const store = createSessionStore(sql, clock)
  const absoluteLifetimeMs = options.absoluteLifetimeMs ?? 30 * day
  const idleTimeoutMs = options.idleTimeoutMs ?? 7 * day
  const waitMs = options.refreshWaitMs ?? 10_000
  // Cookie → its hash for the cookies seen lately: WebCrypto's digest costs more than the lookup.
  const hashes = createRecentCache<string>({ max: 10_000 })
  // Token hash → the session looked up lately (see `cacheMs`). An entry lives `cacheMs` from its
  // read, however often it is used, so another process's changes show within that time.
  const cache = createRecentCache<ActiveSession>({
    max: 10_000,
    ttlMs: options.cacheMs ?? 2000,
    clock,
  })
  // Token hash → its lookup in flight: the requests of a burst (the cache entry just expired, 50
  // at once) share one query instead of queueing 50 on the database.
  const lookups = new Map<string, { generation: number; result: Promise<ResumeResult> }>()
  // Bumped by every change made here: a lookup that started before one neither caches its
  // result nor serves requests that arrive after it.
  let generation = 0
  const forget = (matches: (session: ActiveSession) => boolean) => {
    generation++
    cache.deleteWhere(matches)
  }
  const hashOf = async (token: string): Promise<string> => {
    let hash = hashes.get(token)
    if (hash === undefined) {
      hash = await hashSessionToken(token)
      hashes.set(token, hash)
    }
    return hash
  }

  options.invalidations?.subscribe((invalidation) => {
    if (invalidation.cache !== 'sessions') return
    const { userId, sessionIds } = invalidation
    forget((session) =>
      sessionIds === undefined ? session.userId === userId : sessionIds.includes(session.id),
    )
  })

  /**
   * Marks sessions revoked; the ids that were still active. Their users' tabs are told, and every
   * replica forgets them, in the transaction that revokes them.
   */
  async function markRevoked(
    ids: readonly string[],
    reasonOf: (id: string) => SignOutReason,
  ): Promise<string[]> {
    if (ids.length === 0) return []
    const rows = await sql.transaction(async (tx) => {
      const revoked = await store.markRevoked(ids, tx)
      for (const row of revoked) {
        await events.publish(
          row.user_id,
          'SIGNED_OUT',
          { sessionId: row.id, user: null, reason: reasonOf(row.id) },
          tx,
        )
        await options.invalidations?.publish(
          { cache: 'sessions', userId: row.user_id, sessionIds: [row.id] },
          tx,
        )
      }
      return revoked
    })
    forget((session) => ids.includes(session.id))
    return rows.map((row) => row.id)
  }

  const refresh = createSessionRefresh({
    store,
    auth,
    tokens,
    clock,
    logger,
    marginMs: options.refreshMarginMs,
    leaseMs: options.refreshLeaseMs ?? 60_000,
    waitMs,
    // Auth ended it: another device signed out everywhere, the password changed, a reuse.
    revoke: (ids) => markRevoked(ids, () => 'revoked'),
    changed(session) {
      forget((cached) => cached.id === session.id)
      events.announce(session.userId, 'TOKEN_REFRESHED', { sessionId: session.id, user: null })
    },
  })

  const touchDue = (session: ActiveSession) =>
    clock.now() - session.lastSeenAt.getTime() >= options.touchIntervalMs
  const outlived = (session: ActiveSession) =>
    clock.now() - session.createdAt.getTime() >= absoluteLifetimeMs ||
    clock.now() - session.lastSeenAt.getTime() >= idleTimeoutMs

  /** Ends a session past its lifetime: here at once, at Auth in the background. */
  async function expire(session: ActiveSession): Promise<ResumeResult> {
    logger.info('session ended by its lifetime', { sessionId: session.id })
    await markRevoked([session.id], () => 'expired')
    auth.signOut(session.tokens.accessToken, 'local').catch((error: unknown) => {
      if (!isSessionGone(error))
        logger.warn('could not sign an ended session out at auth', { sessionId: session.id, error })
    })
    return { state: 'expired' }
  }

  /**
   * Reads the session a cookie's hash names, refreshes its tokens when due, marks it seen and
   * keeps it for `cacheMs` — unless something changed here since `started`.
   */
  async function lookUp(hash: string, started: number, ip?: string): Promise<ResumeResult> {
    cache.delete(hash)
    const row = await store.byTokenHash(hash)
    if (row === undefined) return { state: 'unknown' }
    let session = store.toActive(row)
    if (session === null) return { state: 'revoked' }
    if (outlived(session)) return expire(session)
    if (refresh.expiresSoon(session)) {
      const flight = refresh.refresh(session)
      if (session.tokens.expiresAt * 1000 - clock.now() > usableForMs) {
        // The current token still works: answer now, the refresh finishes on its own.
        const sessionId = session.id
        flight.catch((error: unknown) => {
          logger.warn('token refresh failed', { sessionId, error })
        })
        return { state: 'active', session: await touch(session, ip) }
      }
      const refreshed = await within(flight, waitMs)
      if (refreshed.state !== 'active') return refreshed
      session = refreshed.session
    }
    session = await touch(session, ip)
    if (generation === started) cache.set(hash, session)
    return { state: 'active', session }
  }

  async function touch(session: ActiveSession, ip?: string): Promise<ActiveSession> {
    if (!touchDue(session)) return session
    const now = new Date(clock.now())
    await store.touch(session.id, now, ip)
    return { ...session, lastSeenAt: now }
  }

  return {
    async start(authSession, context) {
      await tokens.verify(authSession.accessToken)
      const token = newSessionToken()
      const session = await store.insert({
        auth: authSession,
        tokenHash: await hashSessionToken(token),
        recoveryUntil: context.recovery ? new Date(clock.now() + options.recoveryWindowMs) : null,
        method: context.method,
        ...(context.userAgent === undefined ? {} : { userAgent: context.userAgent }),
        ...(context.ip === undefined ? {} : { ip: context.ip }),
      })
      if (session === null) throw new Error('The new session was not stored.')
      return { token, session }
    },

    async resume(token, context = {}) {
      if (!isSessionToken(token)) return { state: 'unknown' }
      // A token seen lately has its hash at hand: no await (a turn of the microtask queue) for it.
      const hash = hashes.get(token) ?? (await hashOf(token))
      const cached = cache.get(hash)
      if (
        cached !== undefined &&
        !refresh.expiresSoon(cached) &&
        !touchDue(cached) &&
        !outlived(cached)
      )
        return { state: 'active', session: cached }
      let lookup = lookups.get(hash)
      if (lookup === undefined || lookup.generation !== generation) {
        const started = { generation, result: lookUp(hash, generation, context.ip) }
        lookups.set(hash, started)
        const done = () => {
          if (lookups.get(hash) === started) lookups.delete(hash)
        }
        started.result.then(done, done)
        lookup = started
      }
      return lookup.result
    },

    async find(userId, sessionId) {
      const row = await store.ofUser(userId, sessionId)
      return row === undefined ? null : store.toActive(row)
    },

    list: (userId) => store.listActive(userId),

    async revoke(session, reason = 'signed_out') {
      let current: ActiveSession | null = session
      try {
        if (!refresh.stillValid(session) || refresh.expiresSoon(session)) {
          const refreshed = await refresh.refresh(session)
          current = refreshed.state === 'active' ? refreshed.session : null
        }
        if (current !== null) await auth.signOut(current.tokens.accessToken, 'local')
      } catch (error) {
        // Forgetting the refresh token below ends the session for us; Auth's copy expires.
        if (!isSessionGone(error) && !(error instanceof ApiError))
          logger.warn('could not sign a session out at auth', { sessionId: session.id, error })
      }
      await markRevoked([session.id], () => reason)
    },

    async revokeEnded(userId, revokeOptions = {}) {
      return markRevoked(await store.activeIds(userId, revokeOptions.except), (id) =>
        id === revokeOptions.by ? 'signed_out' : 'revoked',
      )
    },

    async updateUser(user) {
      await store.updateUser(user)
      forget((session) => session.userId === user.id)
      // The store writes in a statement of its own: the other replicas hear of it right after.
      await options.invalidations?.publish({ cache: 'sessions', userId: user.id })
    },

    async saveTokens(sessionId, saved) {
      await store.saveTokens(sessionId, saved)
      forget((session) => session.id === sessionId)
    },

    async endRecovery(sessionId) {
      await store.endRecovery(sessionId)
      forget((session) => session.id === sessionId)
    },
  }
}
