/**
 * The SQL of BFF sessions (`bff_sessions`): every statement sessions.ts and its refresh policy
 * run, and how a row becomes an `ActiveSession`. No policy here: when to refresh, cache or end a
 * session is decided by the callers.
 */
import type { SignInMethod } from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import type { AuthUserSnapshot, BffSessionRow } from '../../platform/db/schema.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { claimsOf } from './access-tokens.ts'
import type { AuthSession, AuthTokens } from './auth-gateway.ts'
import { describeDevice } from './device-label.ts'

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

/** A session as listed to its user. */
export interface DeviceSessionRow {
  id: string
  device: string
  userAgent: string | null
  signInMethod: SignInMethod | null
  /** The address of its last request seen, or of its sign-in before any. */
  lastSeenIp: string | null
  createdAt: Date
  lastSeenAt: Date
}

export interface NewSession {
  auth: AuthSession
  tokenHash: string
  recoveryUntil: Date | null
  method: SignInMethod
  userAgent?: string
  ip?: string
}

export type SessionStore = ReturnType<typeof createSessionStore>

export function createSessionStore(sql: Sql, clock: Clock) {
  /** The row as a usable session; null when it was revoked or its tokens are forgotten. */
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

  return {
    toActive,

    async insert(session: NewSession): Promise<ActiveSession | null> {
      const now = new Date(clock.now())
      const { rows } = await execute(
        queries
          .insertInto('bff_sessions')
          .values({
            id: crypto.randomUUID(),
            user_id: session.auth.user.id,
            token_hash: session.tokenHash,
            access_token: session.auth.accessToken,
            refresh_token: session.auth.refreshToken,
            access_expires_at: new Date(session.auth.expiresAt * 1000),
            recovery_until: session.recoveryUntil,
            auth_user: JSON.stringify(session.auth.user),
            device: describeDevice(session.userAgent),
            user_agent: session.userAgent?.slice(0, 512) ?? null,
            ip: session.ip ?? null,
            sign_in_method: session.method,
            last_seen_ip: session.ip ?? null,
            created_at: now,
            last_seen_at: now,
          })
          .returningAll(),
        sql,
      )
      return rows[0] === undefined ? null : toActive(rows[0])
    },

    async byId(id: string): Promise<BffSessionRow | undefined> {
      return (
        await execute(queries.selectFrom('bff_sessions').selectAll().where('id', '=', id), sql)
      ).rows[0]
    },

    async byTokenHash(hash: string): Promise<BffSessionRow | undefined> {
      return (
        await execute(
          queries.selectFrom('bff_sessions').selectAll().where('token_hash', '=', hash),
          sql,
        )
      ).rows[0]
    },

    async ofUser(userId: string, sessionId: string): Promise<BffSessionRow | undefined> {
      return (
        await execute(
          queries
            .selectFrom('bff_sessions')
            .selectAll()
            .where('id', '=', sessionId)
            .where('user_id', '=', userId),
          sql,
        )
      ).rows[0]
    },

    async listActive(userId: string): Promise<DeviceSessionRow[]> {
      const { rows } = await execute(
        queries
          .selectFrom('bff_sessions')
          .select([
            'id',
            'device',
            'user_agent',
            'sign_in_method',
            'ip',
            'last_seen_ip',
            'created_at',
            'last_seen_at',
          ])
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .orderBy('last_seen_at', 'desc'),
        sql,
      )
      return rows.map((row) => ({
        id: row.id,
        device: row.device,
        userAgent: row.user_agent,
        signInMethod: row.sign_in_method,
        lastSeenIp: row.last_seen_ip ?? row.ip,
        createdAt: row.created_at,
        lastSeenAt: row.last_seen_at,
      }))
    },

    async activeIds(userId: string, except?: string): Promise<string[]> {
      let query = queries
        .selectFrom('bff_sessions')
        .select('id')
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
      if (except !== undefined) query = query.where('id', '<>', except)
      return (await execute(query, sql)).rows.map((row) => row.id)
    },

    /** Marks sessions revoked and forgets their tokens; the rows that were still active. */
    async markRevoked(
      ids: readonly string[],
      on: SqlQueryable = sql,
    ): Promise<Array<{ id: string; user_id: string }>> {
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
        on,
      )
      return rows
    },

    /**
     * Claims the session's refresh lease with one conditional UPDATE, so only one request in any
     * process gets it; the refresh token to use, or undefined when another request holds it.
     */
    async claimRefresh(
      id: string,
      options: { leaseMs: number; marginMs: number },
    ): Promise<string | undefined> {
      const now = clock.now()
      const claimed = await execute(
        queries
          .updateTable('bff_sessions')
          .set({ refresh_lease_until: new Date(now + options.leaseMs) })
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .where('access_expires_at', '<', new Date(now + options.marginMs))
          .where((eb) =>
            eb.or([
              eb('refresh_lease_until', 'is', null),
              eb('refresh_lease_until', '<=', new Date(now)),
            ]),
          )
          .returning('refresh_token'),
        sql,
      )
      return claimed.rows[0]?.refresh_token ?? undefined
    },

    async releaseRefresh(id: string): Promise<void> {
      await execute(
        queries.updateTable('bff_sessions').set({ refresh_lease_until: null }).where('id', '=', id),
        sql,
      )
    },

    /** Stores refreshed tokens and releases the lease; null when the session was revoked meanwhile. */
    async saveRefreshed(id: string, fresh: AuthSession): Promise<ActiveSession | null> {
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
          .where('id', '=', id)
          .where('revoked_at', 'is', null)
          .returningAll(),
        sql,
      )
      return rows[0] === undefined ? null : toActive(rows[0])
    },

    /** Moves last_seen_at, and the address it was seen from when one is known: one write. */
    async touch(id: string, at: Date, ip?: string): Promise<void> {
      await execute(
        queries
          .updateTable('bff_sessions')
          .set(ip === undefined ? { last_seen_at: at } : { last_seen_at: at, last_seen_ip: ip })
          .where('id', '=', id),
        sql,
      )
    },

    async updateUser(user: AuthUserSnapshot): Promise<void> {
      await execute(
        queries
          .updateTable('bff_sessions')
          .set({ auth_user: JSON.stringify(user) })
          .where('user_id', '=', user.id)
          .where('revoked_at', 'is', null),
        sql,
      )
    },

    async saveTokens(id: string, saved: AuthTokens): Promise<void> {
      await execute(
        queries
          .updateTable('bff_sessions')
          .set({
            access_token: saved.accessToken,
            refresh_token: saved.refreshToken,
            access_expires_at: new Date(saved.expiresAt * 1000),
          })
          .where('id', '=', id)
          .where('revoked_at', 'is', null),
        sql,
      )
    },

    async endRecovery(id: string): Promise<void> {
      await execute(
        queries.updateTable('bff_sessions').set({ recovery_until: null }).where('id', '=', id),
        sql,
      )
    },
  }
}
