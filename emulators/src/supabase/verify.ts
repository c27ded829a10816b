import type { SqlQueryable } from '@tessera/db/sql'
import { forbidden, unprocessable } from './errors.ts'
import type { OneTimeTokenType } from './one-time-tokens.ts'
import { consumeOneTimeToken, findOneTimeToken } from './one-time-tokens.ts'
import type { SessionDeps, SessionResponse } from './sessions.ts'
import { issueSession } from './sessions.ts'
import type { UserRow } from './users.ts'
import { confirmUser, findUserByEmail, findUserById, isBanned, setUserEmail } from './users.ts'

/** Email verification types the stand-in accepts (`email` is GoTrue's signup-or-magic-link). */
export const verifyTypes = ['signup', 'magiclink', 'recovery', 'email_change', 'email'] as const
export type VerifyType = (typeof verifyTypes)[number]

export function isVerifyType(value: string): value is VerifyType {
  return (verifyTypes as readonly string[]).includes(value)
}

const tokenTypesFor: Record<VerifyType, readonly OneTimeTokenType[]> = {
  signup: ['confirmation_token'],
  magiclink: ['recovery_token'],
  recovery: ['recovery_token'],
  email: ['confirmation_token', 'recovery_token'],
  email_change: ['email_change_token_new'],
}

const invalidToken = () => forbidden('otp_expired', 'Token has expired or is invalid')

function sentAtOf(user: UserRow, type: OneTimeTokenType): Date | null {
  if (type === 'confirmation_token') return user.confirmation_sent_at
  if (type === 'recovery_token') return user.recovery_sent_at
  return user.email_change_sent_at
}

/**
 * Redeems an email token (by hash) and starts a session: confirms a sign-up, signs in with a magic
 * link or recovery link, or applies an email change. A token works once and only until it expires.
 */
export async function redeemEmailToken(
  tx: SqlQueryable,
  deps: SessionDeps,
  input: { type: VerifyType; tokenHash: string; userAgent: string | undefined },
): Promise<SessionResponse> {
  const now = deps.config.clock.now()
  const found = await findOneTimeToken(tx, input.tokenHash, tokenTypesFor[input.type])
  if (found === null) throw invalidToken()
  const user = await findUserById(tx, found.user_id, { forUpdate: true })
  if (user === null) throw invalidToken()
  const sentAt = sentAtOf(user, found.token_type)
  if (sentAt === null || now.getTime() > sentAt.getTime() + deps.config.otpExpirySeconds * 1000)
    throw invalidToken()
  if (isBanned(user, now)) throw forbidden('user_banned', 'User is banned')
  await consumeOneTimeToken(tx, user.id, found.token_type)

  if (found.token_type === 'email_change_token_new') {
    const newEmail = user.email_change
    if (newEmail === null || newEmail === '' || newEmail !== found.relates_to) throw invalidToken()
    const taken = await findUserByEmail(tx, newEmail)
    if (taken !== null && taken.id !== user.id) {
      throw unprocessable(
        'email_exists',
        'A user with this email address has already been registered',
      )
    }
    await setUserEmail(tx, user.id, newEmail, now)
  } else {
    // GoTrue confirms the address on a recovery or magic link too: the user proved they read it.
    await confirmUser(tx, user.id, now)
  }
  return issueSession(tx, deps, user.id, 'otp', input.userAgent)
}
