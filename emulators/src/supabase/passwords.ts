import type { SqlQueryable } from '@tessera/db/sql'
import type { AuthConfig } from './config.ts'
import { GoTrueError, unprocessable } from './errors.ts'

/** GoTrue's password rules: a minimum length and, optionally, character sets to use. */
export function checkPasswordStrength(
  password: string,
  config: Pick<AuthConfig, 'passwordMinLength' | 'passwordRequiredCharacters'>,
): void {
  // bcrypt reads 72 bytes; GoTrue refuses longer passwords rather than silently truncating them.
  if (new TextEncoder().encode(password).length > 72) {
    throw unprocessable('validation_failed', 'Password cannot be longer than 72 characters')
  }
  const reasons: string[] = []
  const messages: string[] = []
  if ([...password].length < config.passwordMinLength) {
    reasons.push('length')
    messages.push(`Password should be at least ${config.passwordMinLength} characters.`)
  }
  const missing = config.passwordRequiredCharacters.filter(
    (set) => ![...password].some((char) => set.includes(char)),
  )
  if (missing.length > 0) {
    reasons.push('characters')
    messages.push(
      `Password should contain at least one character of each: ${config.passwordRequiredCharacters.join(', ')}.`,
    )
  }
  if (reasons.length > 0) {
    throw new GoTrueError(422, 'weak_password', messages.join(' '), { weak_password: { reasons } })
  }
}

/** bcrypt in the database (pgcrypto), so hashes are GoTrue's `$2a$…` format. */
export async function hashPassword(
  db: SqlQueryable,
  password: string,
  cost: number,
): Promise<string> {
  const { rows } = await db.query<{ hash: string }>(
    `select extensions.crypt($1, extensions.gen_salt('bf', $2::int)) as hash`,
    [password, cost],
  )
  const hash = rows[0]?.hash
  if (hash === undefined) throw new Error('Password hashing returned nothing.')
  return hash
}

export async function passwordMatches(
  db: SqlQueryable,
  password: string,
  hash: string,
): Promise<boolean> {
  if (hash === '') return false
  const { rows } = await db.query<{ ok: boolean }>(`select extensions.crypt($1, $2) = $2 as ok`, [
    password,
    hash,
  ])
  return rows[0]?.ok === true
}
