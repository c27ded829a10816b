import type {
  InviteRole,
  WorkspaceMember,
  WorkspaceRole,
  WorkspaceSummary,
} from '@tessera/contracts/workspaces'

/**
 * What the viewer's role lets them do, as the BFF's rules decide it (bff/src/modules/workspaces/
 * rules.ts, docs/decisions/024). The pages offer only these controls; the BFF still decides, and a
 * refusal (the last owner leaving, say) is shown as its sentence next to the control.
 */

export const roleLabels: Record<WorkspaceRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  member: 'Member',
}

/** "an owner", "an admin", "a member": for sentences. */
export const roleWithArticle: Record<WorkspaceRole, string> = {
  owner: 'an owner',
  admin: 'an admin',
  member: 'a member',
}

/** Renaming: owners and admins. */
export const canRename = (viewer: WorkspaceSummary): boolean => viewer.role !== 'member'

/** Seeing, sending, resending and revoking invites: owners and admins of a team. */
export const canInvite = (viewer: WorkspaceSummary): boolean =>
  viewer.kind === 'team' && viewer.role !== 'member'

/** The roles an invite may give: an owner is made by promotion, never by invite. */
export const inviteRoles: readonly InviteRole[] = ['member', 'admin']

/**
 * The roles the viewer may give `target` (including the one they hold), or none when the viewer
 * may not change it: owners change anyone's, admins only make a member an admin.
 */
export function roleChoices(viewer: WorkspaceSummary, target: WorkspaceMember): WorkspaceRole[] {
  if (viewer.kind === 'personal') return []
  if (viewer.role === 'owner') return ['owner', 'admin', 'member']
  if (viewer.role === 'admin' && target.role === 'member') return ['admin', 'member']
  return []
}

/** Removing someone else: owners remove anyone, admins members only. */
export function canRemove(viewer: WorkspaceSummary, target: WorkspaceMember, viewerId: string) {
  if (viewer.kind === 'personal' || target.userId === viewerId) return false
  return viewer.role === 'owner' || (viewer.role === 'admin' && target.role === 'member')
}

/** How a member is named: their display name, else their address. */
export const memberName = (member: WorkspaceMember): string => member.displayName ?? member.email
