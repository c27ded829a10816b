/** The rows of `workspace_invites` as invites.ts reads them, and the refusals it shares. */
import { ApiError, type InviteRole } from '@tessera/contracts'

/** How long an invite link works after it is sent (or resent). */
export const INVITE_LIFETIME_MS = 7 * 24 * 3600 * 1000

export type InviteRow = {
  id: string
  workspace_id: string
  email: string
  role: InviteRole
  invited_by: string | null
  created_at: Date
  expires_at: Date
  accepted_at: Date | null
  declined_at: Date | null
  revoked_at: Date | null
  sent_count: number
  last_sent_at: Date | null
}

export const inviteColumns = `id, workspace_id, email, role, invited_by, created_at, expires_at,
  accepted_at, declined_at, revoked_at, sent_count, last_sent_at`

// The same columns of `workspace_invites i`, for the joins with the workspace's name.
export const joinedInviteColumns = inviteColumns.replaceAll(/(\w+)/g, 'i.$1')

export const iso = (value: Date | string) => new Date(value).toISOString()

/** `a•••@example.com`: enough for a person to recognise their address, not to learn another's. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  return at < 1 ? '•••' : `${email.slice(0, 1)}•••${email.slice(at)}`
}

export function unknownInvite(): ApiError {
  return new ApiError('not_found', {
    message:
      'This invite link is not valid: it may have been replaced by a newer email. Open the newest invite email, or ask for a new invite.',
    details: { reason: 'invite_not_found' },
  })
}

export function unknownInviteId(): ApiError {
  return new ApiError('not_found', {
    message: 'The workspace has no invite with this id. Reload the list of invites.',
    details: { reason: 'invite_not_found' },
  })
}
