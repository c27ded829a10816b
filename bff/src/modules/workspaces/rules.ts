/**
 * Who may do what to whom in a workspace (docs/decisions/024), as pure functions: each answers
 * the catalogue error that refuses the action, or null when it is allowed. The service asks them
 * with the rows it locked, so the answer holds until its transaction commits.
 */
import { ApiError, type WorkspaceKind, type WorkspaceRole } from '@tessera/contracts'

/** A workspace as the rules see it, and the caller's role in it. */
export interface Standing {
  kind: WorkspaceKind
  role: WorkspaceRole
}

const needsRole = (sentence: string, reason: string) =>
  new ApiError('workspace_role_required', { message: sentence, details: { reason } })

/** The refusal for anything that would give a personal workspace a second person. */
export function personalWorkspace(): ApiError {
  return new ApiError('personal_workspace')
}

/** The refusal when the only owner would stop being one. */
export function lastOwner(): ApiError {
  return new ApiError('last_owner')
}

/** Renaming: owners and admins. */
export function renameRefusal(actor: Standing): ApiError | null {
  if (actor.role === 'member') {
    return needsRole(
      'Only owners and admins can rename a workspace. Ask one of them to do it.',
      'rename',
    )
  }
  return null
}

/** Seeing, sending, resending and revoking invites: owners and admins of a team workspace. */
export function inviteRefusal(actor: Standing): ApiError | null {
  if (actor.kind === 'personal') return personalWorkspace()
  if (actor.role === 'member') {
    return needsRole(
      'Only owners and admins can invite people or see the invites. Ask one of them to invite who you have in mind.',
      'invite',
    )
  }
  return null
}

/**
 * Changing `target`'s role to `next`. Owners change anyone's role (their own too); admins may only
 * make a member an admin (or leave them a member); members change nothing. An owner cannot be
 * demoted while they are the only one (`owners` counts the owners now).
 */
export function roleChangeRefusal(
  actor: Standing,
  target: WorkspaceRole,
  next: WorkspaceRole,
  owners: number,
): ApiError | null {
  if (actor.kind === 'personal') return personalWorkspace()
  if (actor.role === 'member') {
    return needsRole(
      'Members cannot change roles. Ask an owner or admin of the workspace.',
      'change_role',
    )
  }
  if (actor.role === 'admin' && (target !== 'member' || next === 'owner')) {
    return needsRole(
      'Admins can only make a member an admin. Ask an owner to change the role of an owner or admin, or to make someone an owner.',
      'change_role',
    )
  }
  if (target === 'owner' && next !== 'owner' && owners <= 1) return lastOwner()
  return null
}

/**
 * Removing `target` (someone else: leaving is `leaveRefusal`). Owners remove anyone; admins
 * remove members only; members remove nobody.
 */
export function removeRefusal(actor: Standing, target: WorkspaceRole): ApiError | null {
  if (actor.kind === 'personal') return personalWorkspace()
  if (actor.role === 'member') {
    return needsRole(
      'Members cannot remove anyone. Ask an owner or admin of the workspace.',
      'remove',
    )
  }
  if (actor.role === 'admin' && target !== 'member') {
    return needsRole(
      'Admins can remove members only. Ask an owner to remove an owner or an admin.',
      'remove',
    )
  }
  return null
}

/** Leaving: anyone but the only owner; never one's personal workspace. */
export function leaveRefusal(actor: Standing, owners: number): ApiError | null {
  if (actor.kind === 'personal') return personalWorkspace()
  if (actor.role === 'owner' && owners <= 1) return lastOwner()
  return null
}
