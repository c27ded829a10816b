import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { AuthConfig } from './config.ts'
import { badRequest } from './errors.ts'
import type { SigningKey } from './signing-keys.ts'
import { signJwt } from './signing-keys.ts'
import type { GoTrueUser, UserRow } from './users.ts'
import { findUserById, isBanned, loadUserJson } from './users.ts'

/** What a sign-in, verify or refresh answers (GoTrue's `AccessTokenResponse`). */
export interface SessionResponse {
  access_token: string
  token_type: 'bearer'
  expires_in: number
  expires_at: number
  refresh_token: string
  user: GoTrueUser
}

export interface SessionDeps {
  config: AuthConfig
  key: SigningKey
}

/** GoTrue's authentication method names, recorded per session in `auth.mfa_amr_claims`. */
export type AuthenticationMethod = 'password' | 'otp' | 'recovery' | 'email_change'

function randomRefreshToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
}

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000)

async function accessTokenFor(
  db: SqlQueryable,
  deps: SessionDeps,
  user: UserRow,
  sessionId: string,
): Promise<{ token: string; expiresAt: number }> {
  const now = deps.config.clock.now()
  const { rows: amr } = await db.query<{ method: string; at: Date }>(
    `select authentication_method as method, updated_at as at from auth.mfa_amr_claims
     where session_id = $1 order by updated_at desc`,
    [sessionId],
  )
  const iat = epochSeconds(now)
  const exp = iat + deps.config.jwtExpirySeconds
  const token = await signJwt(deps.key, {
    aud: user.aud ?? 'authenticated',
    exp,
    iat,
    iss: deps.config.jwtIssuer,
    sub: user.id,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: user.role ?? 'authenticated',
    aal: 'aal1',
    amr: amr.map((claim) => ({ method: claim.method, timestamp: epochSeconds(claim.at) })),
    session_id: sessionId,
    is_anonymous: user.is_anonymous,
  })
  return { token, expiresAt: exp }
}

async function sessionResponse(
  db: SqlQueryable,
  deps: SessionDeps,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
): Promise<SessionResponse> {
  const { token, expiresAt } = await accessTokenFor(db, deps, user, sessionId)
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: deps.config.jwtExpirySeconds,
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: await loadUserJson(db, user),
  }
}

/** Starts a session: a session row, its first refresh token, and an access token. */
export async function issueSession(
  tx: SqlQueryable,
  deps: SessionDeps,
  userId: string,
  method: AuthenticationMethod,
  userAgent: string | undefined,
): Promise<SessionResponse> {
  const now = deps.config.clock.now()
  const sessionId = crypto.randomUUID()
  await tx.query(`update auth.users set last_sign_in_at = $2, updated_at = $2 where id = $1`, [
    userId,
    now,
  ])
  await tx.query(`update auth.identities set last_sign_in_at = $2 where user_id = $1`, [
    userId,
    now,
  ])
  await tx.query(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent)
     values ($1, $2, $3, $3, 'aal1', $4)`,
    [sessionId, userId, now, userAgent ?? null],
  )
  await tx.query(
    `insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
     values ($1, $2, $3, $3, $4)`,
    [crypto.randomUUID(), sessionId, now, method],
  )
  const refreshToken = randomRefreshToken()
  await tx.query(
    `insert into auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ($1, $2, false, $3, $3, null, $4)`,
    [refreshToken, userId, now, sessionId],
  )
  const user = await findUserById(tx, userId)
  if (user === null) throw new Error(`User ${userId} vanished while signing in.`)
  return sessionResponse(tx, deps, user, sessionId, refreshToken)
}

interface RefreshTokenRow {
  id: number
  token: string
  revoked: boolean
  updated_at: Date
  parent: string | null
  session_id: string | null
  user_id: string
}

const refreshTokenNotFound = () =>
  badRequest('refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found')
const refreshTokenAlreadyUsed = () =>
  badRequest('refresh_token_already_used', 'Invalid Refresh Token: Already Used')

/**
 * The refresh_token grant with rotation and reuse detection. A rotated (revoked) token replayed
 * within the reuse interval gets the session's current token back (a tab that lost the answer, or
 * two tabs refreshing at once); replayed later, it is treated as stolen: every token of the session
 * is revoked and the answer is `refresh_token_already_used`.
 */
export async function refreshSession(
  sql: Sql,
  deps: SessionDeps,
  refreshToken: string,
  userAgent: string | undefined,
): Promise<SessionResponse> {
  const outcome = await sql.transaction(async (tx): Promise<SessionResponse | 'reused'> => {
    const now = deps.config.clock.now()
    const { rows } = await tx.query<RefreshTokenRow>(
      `select id::int as id, token, revoked, updated_at, parent, session_id, user_id
       from auth.refresh_tokens where token = $1 for update`,
      [refreshToken],
    )
    const token = rows[0]
    if (token === undefined || token.session_id === null) throw refreshTokenNotFound()
    // Locking the session serialises concurrent refreshes of one session on a server.
    const session = await tx.query<{ id: string; user_id: string }>(
      `select id, user_id from auth.sessions where id = $1 for update`,
      [token.session_id],
    )
    if (session.rows[0] === undefined) throw refreshTokenNotFound()
    const user = await findUserById(tx, session.rows[0].user_id)
    if (user === null) throw refreshTokenNotFound()
    if (isBanned(user, now)) throw badRequest('user_banned', 'Invalid Refresh Token: User Banned')

    let issued: string
    if (token.revoked) {
      const reuseUntil =
        token.updated_at.getTime() + deps.config.refreshTokenReuseIntervalSeconds * 1000
      if (now.getTime() > reuseUntil) {
        await tx.query(
          `update auth.refresh_tokens set revoked = true, updated_at = $2 where session_id = $1 and revoked = false`,
          [token.session_id, now],
        )
        // Committed: the revocation must stick although the request fails.
        return 'reused'
      }
      const active = await tx.query<RefreshTokenRow>(
        `select id::int as id, token, revoked, updated_at, parent, session_id, user_id from auth.refresh_tokens
         where session_id = $1 and revoked = false order by id desc limit 1`,
        [token.session_id],
      )
      const current = active.rows[0]
      if (current === undefined) throw refreshTokenAlreadyUsed()
      issued =
        current.parent === token.token ? current.token : await swapRefreshToken(tx, token, now)
    } else {
      issued = await swapRefreshToken(tx, token, now)
    }
    await tx.query(
      `update auth.sessions set refreshed_at = $2, updated_at = $3, user_agent = coalesce($4, user_agent) where id = $1`,
      [token.session_id, now.toISOString().replace('Z', ''), now, userAgent ?? null],
    )
    return sessionResponse(tx, deps, user, token.session_id, issued)
  })
  if (outcome === 'reused') throw refreshTokenAlreadyUsed()
  return outcome
}

async function swapRefreshToken(
  tx: SqlQueryable,
  parent: RefreshTokenRow,
  now: Date,
): Promise<string> {
  await tx.query(`update auth.refresh_tokens set revoked = true, updated_at = $2 where id = $1`, [
    parent.id,
    now,
  ])
  const child = randomRefreshToken()
  await tx.query(
    `insert into auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, parent, session_id)
     values ($1, $2, false, $3, $3, $4, $5)`,
    [child, parent.user_id, now, parent.token, parent.session_id],
  )
  return child
}

export type LogoutScope = 'global' | 'local' | 'others'

/** Ends sessions; their refresh tokens go with them (`on delete cascade`). */
export async function logout(
  db: SqlQueryable,
  userId: string,
  sessionId: string,
  scope: LogoutScope,
): Promise<void> {
  if (scope === 'global') await db.query('delete from auth.sessions where user_id = $1', [userId])
  else if (scope === 'local') await db.query('delete from auth.sessions where id = $1', [sessionId])
  else
    await db.query('delete from auth.sessions where user_id = $1 and id <> $2', [userId, sessionId])
}

export async function sessionExists(db: SqlQueryable, sessionId: string): Promise<boolean> {
  const { rows } = await db.query('select 1 from auth.sessions where id = $1', [sessionId])
  return rows.length > 0
}
