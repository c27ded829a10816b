import { z } from 'zod/mini'
import { emailSchema } from './auth.ts'
import { plainText } from './text.ts'

/** A member's role in a workspace, strongest first. */
export const workspaceRoles = ['owner', 'admin', 'member'] as const
export const workspaceRoleSchema = z.enum(workspaceRoles, {
  error: 'A role is owner, admin or member.',
})
export type WorkspaceRole = z.infer<typeof workspaceRoleSchema>

/** The roles an invite can give: owners are made by promotion, never by invite. */
export const inviteRoleSchema = z.enum(['admin', 'member'], {
  error: 'An invite makes someone an admin or a member.',
})
export type InviteRole = z.infer<typeof inviteRoleSchema>

/** What a workspace is: one person's own, or a team's. */
export const workspaceKindSchema = z.enum(['personal', 'team'])
export type WorkspaceKind = z.infer<typeof workspaceKindSchema>

// One line shown to every member: no line breaks or bidirectional overrides.
const notInName = /[\t\n\r\u0080-\u009f\u202a-\u202e\u2066-\u2069]/u

/** A workspace's name: trimmed, 1–80 characters, one line of text. */
export const workspaceNameSchema = z.string({ error: 'Enter a name for the workspace.' }).check(
  z.trim(),
  z.minLength(1, 'Enter a name for the workspace.'),
  z.maxLength(80, 'A workspace name can have at most 80 characters.'),
  plainText(),
  z.refine((value) => !notInName.test(value), {
    error: 'A workspace name is one line, without line breaks or direction marks.',
  }),
)

/** `POST /api/workspaces`: a new team workspace; its creator is its owner. */
export const createWorkspaceBodySchema = z.strictObject({ name: workspaceNameSchema })
export type CreateWorkspaceBody = z.infer<typeof createWorkspaceBodySchema>

/** `PATCH /api/workspaces/:id`: a new name (owners and admins). */
export const renameWorkspaceBodySchema = z.strictObject({ name: workspaceNameSchema })
export type RenameWorkspaceBody = z.infer<typeof renameWorkspaceBodySchema>

/** `POST /api/workspaces/current`: the workspace this session works in from now on. */
export const switchWorkspaceBodySchema = z.strictObject({
  workspaceId: z.uuid({ error: 'A workspace is named by its id, a UUID.' }),
})
export type SwitchWorkspaceBody = z.infer<typeof switchWorkspaceBodySchema>

/** `:id` of the workspace routes. */
export const workspaceIdParamSchema = z.strictObject({
  id: z.uuid({ error: 'A workspace is named by its id, a UUID.' }),
})

/** `:id/members/:userId`. */
export const workspaceMemberParamSchema = z.strictObject({
  id: z.uuid({ error: 'A workspace is named by its id, a UUID.' }),
  userId: z.uuid({ error: 'A member is named by their user id, a UUID.' }),
})

/** `:id/invites/:inviteId`. */
export const workspaceInviteParamSchema = z.strictObject({
  id: z.uuid({ error: 'A workspace is named by its id, a UUID.' }),
  inviteId: z.uuid({ error: 'An invite is named by its id, a UUID.' }),
})

/** The token of an invite link (`/invites/<token>`): 43 base64url characters (32 bytes). */
export const inviteTokenParamSchema = z.strictObject({
  token: z
    .string()
    .check(
      z.regex(/^[A-Za-z0-9_-]{43}$/, 'This is not an invite link. Open the link from the email.'),
    ),
})

/** `PATCH /api/workspaces/:id/members/:userId`: the member's new role. */
export const changeMemberRoleBodySchema = z.strictObject({ role: workspaceRoleSchema })
export type ChangeMemberRoleBody = z.infer<typeof changeMemberRoleBodySchema>

/** `POST /api/workspaces/:id/invites`: who to invite, and as what. */
export const createInviteBodySchema = z.strictObject({
  email: emailSchema,
  role: z._default(inviteRoleSchema, 'member'),
  /**
   * The inviter agrees to one more paid seat when members and pending invites would pass the
   * seats the team's subscription pays for (else 409 `seat_confirmation_required`).
   */
  confirmExtraSeat: z.optional(z.boolean()),
})
export type CreateInviteBody = z.input<typeof createInviteBodySchema>

/** One workspace of the signed-in user, as `GET /api/workspaces` lists it. */
export const workspaceSummarySchema = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: workspaceKindSchema,
  role: workspaceRoleSchema,
  memberCount: z.int().check(z.nonnegative()),
  /** Whether this session works in it now. */
  current: z.boolean(),
  createdAt: z.string(),
})
export type WorkspaceSummary = z.infer<typeof workspaceSummarySchema>

/** `GET /api/workspaces`: personal first, then teams by name; exactly one is current. */
export const workspacesResponseSchema = z.object({
  workspaces: z.array(workspaceSummarySchema),
  currentId: z.uuid(),
})
export type WorkspacesResponse = z.infer<typeof workspacesResponseSchema>

/** A member as the member list shows them. */
export const workspaceMemberSchema = z.object({
  userId: z.uuid(),
  email: z.string(),
  displayName: z.nullable(z.string()),
  role: workspaceRoleSchema,
  monthlyTokenCap: z.nullable(z.int()),
  joinedAt: z.string(),
})
export type WorkspaceMember = z.infer<typeof workspaceMemberSchema>

/** `GET /api/workspaces/:id/members`: owners first, then admins, then members. */
export const workspaceMembersResponseSchema = z.object({
  members: z.array(workspaceMemberSchema),
})
export type WorkspaceMembersResponse = z.infer<typeof workspaceMembersResponseSchema>

/** Where an invite stands. */
export const inviteStateSchema = z.enum(['pending', 'accepted', 'declined', 'revoked', 'expired'])
export type InviteState = z.infer<typeof inviteStateSchema>

/** An invite as its workspace's owners and admins see it (never its token). */
export const workspaceInviteSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  role: inviteRoleSchema,
  state: inviteStateSchema,
  invitedBy: z.nullable(z.string()),
  createdAt: z.string(),
  expiresAt: z.string(),
  sentCount: z.int().check(z.nonnegative()),
  lastSentAt: z.nullable(z.string()),
})
export type WorkspaceInvite = z.infer<typeof workspaceInviteSchema>

/** `GET /api/workspaces/:id/invites`: the pending and expired ones, newest first. */
export const workspaceInvitesResponseSchema = z.object({
  invites: z.array(workspaceInviteSchema),
})

/**
 * The answer to an invite or a resend: the invite, and whether its email went out. When it did
 * not (`emailSent: false`), the invite is stored all the same and `message` says to resend it.
 */
export const sentInviteSchema = z.object({
  invite: workspaceInviteSchema,
  emailSent: z.boolean(),
  message: z.string(),
})
export type SentInvite = z.infer<typeof sentInviteSchema>

/** `GET /api/invites/:token`: what the link is, for the invite page (signed in, any account). */
export const invitePreviewSchema = z.object({
  workspaceName: z.string(),
  invitedBy: z.nullable(z.string()),
  role: inviteRoleSchema,
  state: inviteStateSchema,
  expiresAt: z.string(),
  /** The invited address, masked unless it is the signed-in user's own (`a•••@example.com`). */
  email: z.string(),
  /** Whether the signed-in account is the invited address (only then can it accept). */
  forYou: z.boolean(),
})
export type InvitePreview = z.infer<typeof invitePreviewSchema>

/** `POST /api/invites/:token/accept`: the workspace joined (now this session's current one). */
export const acceptedInviteSchema = z.object({ workspace: workspaceSummarySchema })
export type AcceptedInvite = z.infer<typeof acceptedInviteSchema>

/** The live event type telling a user's tabs that a workspace of theirs changed. */
export const WORKSPACE_EVENT_TYPE = 'workspace.changed'

/** Why a `workspace.changed` event was sent. */
export const workspaceChangeSchema = z.enum([
  'created',
  'renamed',
  'members',
  'invites',
  'removed',
  'current',
])

/**
 * The `workspace.changed` event's data. For `current`, `sessionId` names the session that
 * switched: only its tabs follow (others of the same user ignore it).
 */
export const workspaceEventDataSchema = z.object({
  workspaceId: z.uuid(),
  change: workspaceChangeSchema,
  sessionId: z.nullable(z.string()),
})
export type WorkspaceEventData = z.infer<typeof workspaceEventDataSchema>
