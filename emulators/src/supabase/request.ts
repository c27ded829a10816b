import '@tessera/contracts/zod-messages'
import type { Context } from 'hono'
import type { JWTPayload } from 'jose'
import { z } from 'zod/mini'
import type { Sql } from '@tessera/db/sql'
import { bearerToken } from './api-keys.ts'
import type { AuthConfig } from './config.ts'
import { GoTrueError, badRequest, forbidden } from './errors.ts'
import { sessionExists } from './sessions.ts'
import type { SigningKey } from './signing-keys.ts'
import { verifyJwt } from './signing-keys.ts'
import type { UserRow } from './users.ts'
import { findUserById } from './users.ts'

/** The request body as a JSON object; GoTrue answers `bad_json` to anything else. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text()
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw badRequest(
      'bad_json',
      `Could not parse request body as JSON: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('bad_json', 'Could not parse request body as JSON: expected a JSON object')
  }
  // Postgres text and jsonb cannot hold U+0000; refuse it here rather than fail in the database.
  if (containsNul(value))
    throw badRequest('validation_failed', 'Text must not contain the NUL character (U+0000).')
  return value as Record<string, unknown>
}

export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000')
  if (Array.isArray(value)) return value.some(containsNul)
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).some(
      ([key, field]) => key.includes('\u0000') || containsNul(field),
    )
  }
  return false
}

/** Validates a body; like Go's decoder, a field of the wrong type fails the whole request. */
export async function readBody<T>(c: Context, schema: z.core.$ZodType<T>): Promise<T> {
  const result = z.safeParse(schema, await readJsonObject(c))
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.')
  throw badRequest(
    'bad_json',
    `Could not parse request body as JSON: ${where}: ${issue?.message ?? 'invalid'}`,
  )
}

/** Metadata objects as supabase-js sends them (`data`, `user_metadata`…). */
export const metadataSchema = z.record(z.string(), z.unknown())

/** PKCE fields supabase-js always sends (null in the implicit flow). */
export const pkceFields = {
  code_challenge: z.nullish(z.string()),
  code_challenge_method: z.nullish(z.string()),
}

/** The stand-in speaks the implicit and token-hash flows only; it says so instead of misbehaving. */
export function rejectPkce(body: { code_challenge?: string | null | undefined }): void {
  if (
    body.code_challenge !== undefined &&
    body.code_challenge !== null &&
    body.code_challenge !== ''
  ) {
    throw badRequest(
      'validation_failed',
      'The PKCE flow (code_challenge) is not supported by the Tessera Supabase stand-in; use the implicit flow with verifyOtp({ token_hash, type }).',
    )
  }
}

const emailPattern = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/

/** GoTrue's email check: trimmed, at most 255 characters, plausible shape, stored lowercased. */
export function validateEmail(email: string | undefined): string {
  const trimmed = (email ?? '').trim()
  if (trimmed === '') throw badRequest('validation_failed', 'An email address is required')
  if (trimmed.length > 255) throw badRequest('validation_failed', 'An email address is too long')
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (!emailPattern.test(trimmed) || /[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw badRequest('validation_failed', 'Unable to validate email address: invalid format')
  }
  return trimmed.toLowerCase()
}

export interface Authenticated {
  user: UserRow
  sessionId: string
  claims: JWTPayload
}

/** GoTrue's `requireAuthentication`: a valid access token whose session and user still exist. */
export async function requireUser(
  c: Context,
  deps: { sql: Sql; key: SigningKey; config: AuthConfig },
): Promise<Authenticated> {
  const token = bearerToken(c)
  if (token === undefined) {
    throw new GoTrueError(401, 'no_authorization', 'This endpoint requires a valid Bearer token')
  }
  let claims: JWTPayload
  try {
    claims = await verifyJwt(deps.key, token, deps.config.clock.now())
  } catch (error) {
    throw forbidden(
      'bad_jwt',
      `invalid JWT: unable to parse or verify signature, ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  const sessionId = typeof claims.session_id === 'string' ? claims.session_id : undefined
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
  if (
    sessionId === undefined ||
    !uuid.test(sessionId) ||
    typeof claims.sub !== 'string' ||
    !uuid.test(claims.sub)
  ) {
    throw forbidden('bad_jwt', 'invalid claim: missing sub or session_id claim')
  }
  if (!(await sessionExists(deps.sql, sessionId))) {
    throw forbidden('session_not_found', 'Session from session_id claim in JWT does not exist')
  }
  const user = await findUserById(deps.sql, claims.sub)
  if (user === null) throw forbidden('user_not_found', 'User from sub claim in JWT does not exist')
  return { user, sessionId, claims }
}
