/**
 * BFF sessions (DESIGN §5, docs/decisions/003): the browser holds an opaque cookie, Postgres holds
 * the user's Supabase tokens (`bff_sessions`), and the BFF refreshes them itself, one refresh at a
 * time per session, in one process or many.
 */
import { ApiError } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import type { AuthUserSnapshot, BffSessionRow } from '../../platform/db/schema.ts'
import type { Logger } from '../../platform/logger.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { claimsOf } from './access-tokens.ts'
import type { AccessTokenVerifier } from './access-tokens.ts'
import { isSessionGone, toApiErrorFromAuth } from './auth-errors.ts'
import type { AuthEvents } from './auth-events.ts'
import type { AuthGateway, AuthSession, AuthTokens } from './auth-gateway.ts'
import { describeDevice } from './device-label.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import { hashSessionToken, isSessionToken, newSessionToken } from './session-token.ts'

export interface ActiveSession {
  id: string
  userId: string
  user: AuthUserSnapshot
  tokens: AuthTokens
  /** The access token's claims (verified when Auth issued it), for `withUser`. */
  claims: UserClaims
  /** Started from a password-recovery link, less than the recovery window ago. */
  recovery: boolean
  createdAt: Date
  lastSeenAt: Date
}

export type ResumeResult =
  | { state: 'active'; session: ActiveSession }
  /** The cookie names a session that was signed out or revoked. */
  | { state: 'revoked' }
  /** The cookie is not one of ours (malformed, unknown, or from another database). */
  | { state: 'unknown' }

/** A session as listed to its user. */
export interface DeviceSessionRow {
  id: string
  device: string
  createdAt: Date
  lastSeenAt: Date
}

export interface StartContext {
  recovery: boolean
  userAgent?: string
  ip?: string
}

export interface Sessions {
  /** Keeps tokens Auth just issued (after verifying them); returns the new cookie value. */
  start(
    auth: AuthSession,
    context: StartContext,
  ): Promise<{ token: string; session: ActiveSession }>
  /** The session a cookie names, with its tokens refreshed when they are due. */
  resume(token: string): Promise<ResumeResult>
  /** One active session of a user, for revoking it. */
  find(userId: string, sessionId: string): Promise<ActiveSession | null>
  list(userId: string): Promise<DeviceSessionRow[]>
  /**
   * Signs one session out: at Auth (best effort; its refresh token is forgotten here either way),
   * then here. The user's tabs get SIGNED_OUT for it.
   */
  revoke(session: ActiveSession): Promise<void>
  /**
   * Marks sessions revoked that Auth has already ended (a global sign-out, a password change);
   * returns their ids. The user's tabs get SIGNED_OUT for each.
   */
  revokeEnded(userId: string, options?: { except?: string }): Promise<string[]>
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
  clock: Clock
  logger: Logger
  /** Refresh when the access token has less than this left (more than supabase-js's 90 s). */
  refreshMarginMs: number
  /** last_seen_at is written at most this often per session. */
  touchIntervalMs: number
  /** How long a recovery link's session may set a password without the current one. */
  recoveryWindowMs: number
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

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A request may go on with a token that has at least this long left while it is refreshed. */
const usableForMs = 10_000

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
  const leaseMs = options.refreshLeaseMs ?? 60_000
  const waitMs = options.refreshWaitMs ?? 10_000
  // Requests of one process for one session share its refresh (see refreshOnce).
  const inflight = new Map<string, Promise<ResumeResult>>()
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

  const toActive = (row: BffSessionRow): ActiveSession | null => {
    if (row.revoked_at !== null || row.access_token === null || row.refresh_token === null)
      return null
    return {
      id: row.id,
      userId: row.user_id,
      user: row.auth_user,
      tokens: {
        accessToken: row.access_token,
        refreshToken: row.refresh_token,
        expiresAt: Math.floor(row.access_expires_at.getTime() / 1000),
      },
      claims: claimsOf(row.access_token),
      recovery: row.recovery_until !== null && row.recovery_until.getTime() > clock.now(),
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at,
    }
  }

  const expiresSoon = (session: ActiveSession) =>
    session.tokens.expiresAt * 1000 - clock.now() < options.refreshMarginMs
  const stillValid = (session: ActiveSession) => session.tokens.expiresAt * 1000 > clock.now()
  const touchDue = (session: ActiveSession) =>
    clock.now() - session.lastSeenAt.getTime() >= options.touchIntervalMs

  const readSession = async (id: string) =>
    (await execute(queries.selectFrom('bff_sessions').selectAll().where('id', '=', id), sql))
      .rows[0]

  /** Marks sessions revoked and forgets their tokens; returns the ids that were still active. */
  async function markRevoked(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return []
    const { rows } = await execute(
      queries
        .updateTable('bff_sessions')
        .set({
          revoked_at: new Date(clock.now()),
          access_token: null,
          refresh_token: null,
          refresh_lease_until: null,
        })
        .where('id', 'in', ids)
        .where('revoked_at', 'is', null)
        .returning(['id', 'user_id']),
      sql,
    )
    forget((session) => ids.includes(session.id))
    for (const row of rows)
      events.publish(row.user_id, 'SIGNED_OUT', { sessionId: row.id, user: null })
    return rows.map((row) => row.id)
  }

  function refreshOnce(session: ActiveSession): Promise<ResumeResult> {
    let flight = inflight.get(session.id)
    if (flight === undefined) {
      flight = refreshNow(session).finally(() => inflight.delete(session.id))
      inflight.set(session.id, flight)
    }
    return flight
  }

  /**
   * Claims the session's refresh lease (one conditional UPDATE: only one request in any process
   * gets it), refreshes at Auth and stores the new tokens. No transaction is held across the
   * call to Auth: on PGlite that would lock out the Auth stand-in sharing the database.
   */
  async function refreshNow(session: ActiveSession): Promise<ResumeResult> {
    const now = clock.now()
    const claimed = await execute(
      queries
        .updateTable('bff_sessions')
        .set({ refresh_lease_until: new Date(now + leaseMs) })
        .where('id', '=', session.id)
        .where('revoked_at', 'is', null)
        .where('access_expires_at', '<', new Date(now + options.refreshMarginMs))
        .where((eb) =>
          eb.or([
            eb('refresh_lease_until', 'is', null),
            eb('refresh_lease_until', '<=', new Date(now)),
          ]),
        )
        .returning('refresh_token'),
      sql,
    )
    const refreshToken = claimed.rows[0]?.refresh_token
    if (refreshToken === undefined || refreshToken === null) return afterOtherRefresh(session)

    let fresh: AuthSession
    try {
      fresh = await auth.refresh(refreshToken)
      await tokens.verify(fresh.accessToken)
    } catch (error) {
      if (isSessionGone(error)) {
        // Revoked elsewhere (another device signed out everywhere, a password change, reuse).
        logger.info('session ended by auth', { sessionId: session.id, reason: String(error) })
        await markRevoked([session.id])
        return { state: 'revoked' }
      }
      await execute(
        queries
          .updateTable('bff_sessions')
          .set({ refresh_lease_until: null })
          .where('id', '=', session.id),
        sql,
      )
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

    const { rows } = await execute(
      queries
        .updateTable('bff_sessions')
        .set({
          access_token: fresh.accessToken,
          refresh_token: fresh.refreshToken,
          access_expires_at: new Date(fresh.expiresAt * 1000),
          auth_user: JSON.stringify(fresh.user),
          refresh_lease_until: null,
        })
        .where('id', '=', session.id)
        .where('revoked_at', 'is', null)
        .returningAll(),
      sql,
    )
    const saved = rows[0] === undefined ? null : toActive(rows[0])
    if (saved === null) {
      // Revoked while Auth was answering: end the tokens just issued too.
      await auth.signOut(fresh.accessToken, 'local').catch((error: unknown) => {
        logger.warn('could not sign out a session revoked during its refresh', { error })
      })
      return { state: 'revoked' }
    }
    forget((cached) => cached.id === session.id)
    events.publish(session.userId, 'TOKEN_REFRESHED', { sessionId: session.id, user: null })
    return { state: 'active', session: saved }
  }

  /** Another request (maybe in another process) holds the lease, or has just refreshed. */
  async function afterOtherRefresh(session: ActiveSession): Promise<ResumeResult> {
    const deadline = clock.now() + waitMs
    for (;;) {
      const row = await readSession(session.id)
      const current = row === undefined ? null : toActive(row)
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

  /**
   * Reads the session a cookie's hash names, refreshes its tokens when due (see `refreshOnce`),
   * marks it seen and keeps it for `cacheMs` — unless something changed here since `started`.
   */
  async function lookUp(hash: string, started: number): Promise<ResumeResult> {
    cache.delete(hash)
    const row = (
      await execute(
        queries.selectFrom('bff_sessions').selectAll().where('token_hash', '=', hash),
        sql,
      )
    ).rows[0]
    if (row === undefined) return { state: 'unknown' }
    let session = toActive(row)
    if (session === null) return { state: 'revoked' }
    if (expiresSoon(session)) {
      const flight = refreshOnce(session)
      if (session.tokens.expiresAt * 1000 - clock.now() > usableForMs) {
        // The current token still works: answer now, the refresh finishes on its own.
        const sessionId = session.id
        flight.catch((error: unknown) => {
          logger.warn('token refresh failed', { sessionId, error })
        })
        return { state: 'active', session: await touch(session) }
      }
      const refreshed = await within(flight, waitMs)
      if (refreshed.state !== 'active') return refreshed
      session = refreshed.session
    }
    session = await touch(session)
    if (generation === started) cache.set(hash, session)
    return { state: 'active', session }
  }

  async function touch(session: ActiveSession): Promise<ActiveSession> {
    const now = clock.now()
    if (now - session.lastSeenAt.getTime() < options.touchIntervalMs) return session
    await execute(
      queries
        .updateTable('bff_sessions')
        .set({ last_seen_at: new Date(now) })
        .where('id', '=', session.id),
      sql,
    )
    return { ...session, lastSeenAt: new Date(now) }
  }

  return {
    async start(authSession, context) {
      await tokens.verify(authSession.accessToken)
      const token = newSessionToken()
      const now = new Date(clock.now())
      const { rows } = await execute(
        queries
          .insertInto('bff_sessions')
          .values({
            id: crypto.randomUUID(),
            user_id: authSession.user.id,
            token_hash: await hashSessionToken(token),
            access_token: authSession.accessToken,
            refresh_token: authSession.refreshToken,
            access_expires_at: new Date(authSession.expiresAt * 1000),
            recovery_until: context.recovery
              ? new Date(now.getTime() + options.recoveryWindowMs)
              : null,
            auth_user: JSON.stringify(authSession.user),
            device: describeDevice(context.userAgent),
            user_agent: context.userAgent?.slice(0, 512) ?? null,
            ip: context.ip ?? null,
            created_at: now,
            last_seen_at: now,
          })
          .returningAll(),
        sql,
      )
      const session = rows[0] === undefined ? null : toActive(rows[0])
      if (session === null) throw new Error('The new session was not stored.')
      return { token, session }
    },

    async resume(token) {
      if (!isSessionToken(token)) return { state: 'unknown' }
      const hash = await hashOf(token)
      const cached = cache.get(hash)
      if (cached !== undefined && !expiresSoon(cached) && !touchDue(cached))
        return { state: 'active', session: cached }
      let lookup = lookups.get(hash)
      if (lookup === undefined || lookup.generation !== generation) {
        const started = { generation, result: lookUp(hash, generation) }
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
      const row = (
        await execute(
          queries
            .selectFrom('bff_sessions')
            .selectAll()
            .where('id', '=', sessionId)
            .where('user_id', '=', userId),
          sql,
        )
      ).rows[0]
      return row === undefined ? null : toActive(row)
    },

    async list(userId) {
      const { rows } = await execute(
        queries
          .selectFrom('bff_sessions')
          .select(['id', 'device', 'created_at', 'last_seen_at'])
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .orderBy('last_seen_at', 'desc'),
        sql,
      )
      return rows.map((row) => ({
        id: row.id,
        device: row.device,
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
      }))
    },

    async revoke(session) {
      let current: ActiveSession | null = session
      try {
        if (!stillValid(session) || expiresSoon(session)) {
          const refreshed = await refreshOnce(session)
          current = refreshed.state === 'active' ? refreshed.session : null
        }
        if (current !== null) await auth.signOut(current.tokens.accessToken, 'local')
      } catch (error) {
        // Forgetting the refresh token below ends the session for us; Auth's copy expires.
        if (!isSessionGone(error) && !(error instanceof ApiError))
          logger.warn('could not sign a session out at auth', { sessionId: session.id, error })
      }
      await markRevoked([session.id])
    },

    async revokeEnded(userId, revokeOptions = {}) {
      let query = queries
        .selectFrom('bff_sessions')
        .select('id')
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
      if (revokeOptions.except !== undefined) query = query.where('id', '<>', revokeOptions.except)
      const { rows } = await execute(query, sql)
      return markRevoked(rows.map((row) => row.id))
    },

    async updateUser(user) {
      await execute(
        queries
          .updateTable('bff_sessions')
          .set({ auth_user: JSON.stringify(user) })
          .where('user_id', '=', user.id)
          .where('revoked_at', 'is', null),
        sql,
      )
      forget((session) => session.userId === user.id)
    },

    async saveTokens(sessionId, saved) {
      await execute(
        queries
          .updateTable('bff_sessions')
          .set({
            access_token: saved.accessToken,
            refresh_token: saved.refreshToken,
            access_expires_at: new Date(saved.expiresAt * 1000),
          })
          .where('id', '=', sessionId)
          .where('revoked_at', 'is', null),
        sql,
      )
      forget((session) => session.id === sessionId)
    },

    async endRecovery(sessionId) {
      await execute(
        queries
          .updateTable('bff_sessions')
          .set({ recovery_until: null })
          .where('id', '=', sessionId),
        sql,
      )
      forget((session) => session.id === sessionId)
    },
  }
}
