import type { SqlQueryable } from '@tessera/db/sql'

/** The `auth.one_time_token_type` values the stand-in issues. */
export type OneTimeTokenType = 'confirmation_token' | 'recovery_token' | 'email_change_token_new'

/** `auth.users` columns GoTrue keeps next to each token: the hash and when it was sent. */
export const tokenColumns: Record<OneTimeTokenType, { token: string; sentAt: string }> = {
  confirmation_token: { token: 'confirmation_token', sentAt: 'confirmation_sent_at' },
  recovery_token: { token: 'recovery_token', sentAt: 'recovery_sent_at' },
  email_change_token_new: { token: 'email_change_token_new', sentAt: 'email_change_sent_at' },
}

function sixDigits(): string {
  const [value = 0] = crypto.getRandomValues(new Uint32Array(1))
  return String(value % 1_000_000).padStart(6, '0')
}

/**
 * GoTrue's token hash is a digest of the address and the code, so one email carries both a link
 * (`token_hash`) and a code (`token`). GoTrue uses SHA-224; Web Crypto has no SHA-224, so the
 * stand-in uses SHA-256. The value is opaque to clients either way.
 */
export async function tokenHashFor(address: string, otp: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(address.toLowerCase() + otp),
  )
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

export interface IssuedToken {
  otp: string
  tokenHash: string
}

/** Issues (or replaces) the user's token of a type and records its send time on the user. */
export async function issueOneTimeToken(
  tx: SqlQueryable,
  input: { userId: string; type: OneTimeTokenType; relatesTo: string; now: Date },
): Promise<IssuedToken> {
  const otp = sixDigits()
  const tokenHash = await tokenHashFor(input.relatesTo, otp)
  await tx.query(
    `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
     values ($1, $2, $3::auth.one_time_token_type, $4, $5)
     on conflict (user_id, token_type) do update
       set token_hash = excluded.token_hash, relates_to = excluded.relates_to, created_at = now(), updated_at = now()`,
    [crypto.randomUUID(), input.userId, input.type, tokenHash, input.relatesTo.toLowerCase()],
  )
  const columns = tokenColumns[input.type]
  await tx.query(
    `update auth.users set ${columns.token} = $2, ${columns.sentAt} = $3 where id = $1`,
    [input.userId, tokenHash, input.now],
  )
  return { otp, tokenHash }
}

export interface FoundToken {
  user_id: string
  token_type: OneTimeTokenType
  relates_to: string
}

/** Finds a live token by hash among the given types (locked until the transaction ends). */
export async function findOneTimeToken(
  tx: SqlQueryable,
  tokenHash: string,
  types: readonly OneTimeTokenType[],
): Promise<FoundToken | null> {
  const { rows } = await tx.query<FoundToken>(
    `select user_id, token_type::text as token_type, relates_to from auth.one_time_tokens
     where token_hash = $1 and token_type::text = any(string_to_array($2, ','))
     for update`,
    [tokenHash, types.join(',')],
  )
  return rows[0] ?? null
}

/** Consumes a token: a link or code works once. */
export async function consumeOneTimeToken(
  tx: SqlQueryable,
  userId: string,
  type: OneTimeTokenType,
): Promise<void> {
  await tx.query(
    `delete from auth.one_time_tokens where user_id = $1 and token_type = $2::auth.one_time_token_type`,
    [userId, type],
  )
  await tx.query(`update auth.users set ${tokenColumns[type].token} = '' where id = $1`, [userId])
}
