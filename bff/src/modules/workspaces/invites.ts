/**
 * Invitations to a team workspace (docs/decisions/024). An invite stores the sha256 of a random
 * token; the token is only in the emailed link (`/auth/invites/<token>`, the auth remote's invite page), never stored or logged. A
 * link is single use, valid for 7 days from its latest send, and only for the signed-in account
 * whose email is the invited address. The email goes out after the invite is committed: when the
 * mail service fails, the invite stays and the answer says to resend it.
 */
import {
  ApiError,
  type AcceptedInvite,
  type InvitePreview,
  type InviteRole,
  type InviteState,
  type SentInvite,
  type WorkspaceInvite,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import type { MailSender } from '../../platform/mail.ts'
import { withUser } from '../../platform/db/with-user.ts'
import { sha256Hex } from '../deploy/hash.ts'
import type { ActiveSession } from '../identity/sessions.ts'
import { newSessionToken } from '../identity/session-token.ts'
import { inviteEmail } from './invite-email.ts'
import {
  INVITE_LIFETIME_MS,
  inviteColumns,
  iso,
  joinedInviteColumns,
  maskEmail,
  unknownInvite,
  unknownInviteId,
  type InviteRow,
} from './invite-rows.ts'
import { inviteRefusal } from './rules.ts'
import { standingIn } from './workspaces-service.ts'
import type { WorkspacesService } from './workspaces-service.ts'
import type { WorkspacesStore } from './workspaces-store.ts'

export interface InvitesDeps {
  sql: Sql
  store: WorkspacesStore
  service: WorkspacesService
  mail: MailSender
  clock: Clock
  logger: Logger
  publicOrigin: string
  /**
   * Runs in an invite's transaction, the workspace locked, before the invite is stored: seat
   * billing refuses one past the paid seats unless `confirmExtraSeat` (docs/decisions/026).
   */
  beforeInvite?: BeforeInvite | undefined
}

/** The hook an invite passes before it is stored; throws the refusal. */
export type BeforeInvite = (
  tx: SqlQueryable,
  workspaceId: string,
  options: { confirmExtraSeat: boolean },
) => Promise<void>

export type Invites = ReturnType<typeof createInvites>

export function createInvites(deps: InvitesDeps) {
  const { sql, store, service, clock, logger } = deps
  const now = () => new Date(clock.now())

  const stateOf = (row: InviteRow): InviteState => {
    if (row.accepted_at !== null) return 'accepted'
    if (row.declined_at !== null) return 'declined'
    if (row.revoked_at !== null) return 'revoked'
    return new Date(row.expires_at).getTime() <= clock.now() ? 'expired' : 'pending'
  }

  const nameOf = async (userId: string | null): Promise<string | null> => {
    if (userId === null) return null
    const person = (await store.peopleOf([userId])).get(userId)
    return person === undefined ? null : (person.displayName ?? person.email)
  }

  const toInvite = async (row: InviteRow): Promise<WorkspaceInvite> => ({
    id: row.id,
    email: row.email,
    role: row.role,
    state: stateOf(row),
    invitedBy: await nameOf(row.invited_by),
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    sentCount: Number(row.sent_count),
    lastSentAt: row.last_sent_at === null ? null : iso(row.last_sent_at),
  })

  /** Locks the workspace; the caller must be an owner or admin of a team workspace. */
  const lockAsInviter = async (tx: SqlQueryable, session: ActiveSession, workspaceId: string) => {
    const workspace = standingIn(await store.lock(tx, workspaceId, session.userId))
    const refusal = inviteRefusal(workspace)
    if (refusal !== null) throw refusal
    return workspace
  }

  const inviteById = async (tx: SqlQueryable, workspaceId: string, inviteId: string) => {
    const { rows } = await tx.query<InviteRow>(
      `select ${inviteColumns} from public.workspace_invites
       where id = $1 and workspace_id = $2 for update`,
      [inviteId, workspaceId],
    )
    const row = rows[0]
    if (row === undefined) throw unknownInviteId()
    return row
  }

  /** Sends the link; counts the send when the mail service took it. */
  const send = async (
    row: InviteRow,
    token: string,
    tokenHash: string,
    workspaceName: string,
    inviter: string | null,
  ): Promise<SentInvite> => {
    const link = `${deps.publicOrigin}/auth/invites/${token}`
    const result = await deps.mail.send({
      to: row.email,
      ...inviteEmail({ link, workspaceName, inviter, role: row.role, expiresAt: row.expires_at }),
      // Per invite and token: a retry of this send goes out once, a resend (new token) again.
      idempotencyKey: `workspace-invite/${row.id}/${tokenHash.slice(0, 16)}`,
    })
    let current = row
    if (result.sent) {
      const { rows } = await sql.query<InviteRow>(
        `update public.workspace_invites set sent_count = sent_count + 1, last_sent_at = $3
         where id = $1 and token_hash = $2 returning ${inviteColumns}`,
        [row.id, tokenHash, now()],
      )
      current = rows[0] ?? row
    } else {
      logger.warn('an invite email was not sent', { inviteId: row.id, reason: result.reason })
    }
    return {
      invite: await toInvite(current),
      emailSent: result.sent,
      message: result.sent
        ? `Invite sent to ${row.email}. The link works for 7 days.`
        : `The invite to ${row.email} is saved, but its email could not be sent just now. Resend it from the list of invites in a few minutes.`,
    }
  }

  /** The invite a link names, with its workspace; refusals for links that cannot be used. */
  const usableInvite = async (tx: SqlQueryable, session: ActiveSession, token: string) => {
    const tokenHash = await sha256Hex(token)
    const { rows } = await tx.query<InviteRow & { name: string }>(
      `select ${joinedInviteColumns}, w.name from public.workspace_invites i
       join public.workspaces w on w.id = i.workspace_id where i.token_hash = $1`,
      [tokenHash],
    )
    const found = rows[0]
    if (found === undefined) throw unknownInvite()
    // The workspace first, then the invite: the order every change of members locks in.
    await tx.query('select 1 from public.workspaces where id = $1 for update', [found.workspace_id])
    const row = (
      await tx.query<InviteRow>(
        `select ${inviteColumns} from public.workspace_invites where id = $1 for update`,
        [found.id],
      )
    ).rows[0]
    if (row === undefined) throw unknownInvite()
    const state = stateOf(row)
    if (state === 'expired') throw new ApiError('invite_expired')
    if (state !== 'pending') throw new ApiError('invite_used', { details: { state } })
    if (session.user.email.toLowerCase() !== row.email) {
      throw new ApiError('invite_wrong_account', { details: { invited: maskEmail(row.email) } })
    }
    return { ...row, name: found.name }
  }

  /** What a link is, for whoever holds it and is signed in (the address masked unless theirs). */
  const preview = async (session: ActiveSession, token: string): Promise<InvitePreview> => {
    const { rows } = await sql.query<InviteRow & { name: string }>(
      `select ${joinedInviteColumns}, w.name from public.workspace_invites i
       join public.workspaces w on w.id = i.workspace_id where i.token_hash = $1`,
      [await sha256Hex(token)],
    )
    const row = rows[0]
    if (row === undefined) throw unknownInvite()
    const forYou = session.user.email.toLowerCase() === row.email
    return {
      workspaceName: row.name,
      invitedBy: await nameOf(row.invited_by),
      role: row.role,
      state: stateOf(row),
      expiresAt: iso(row.expires_at),
      email: forYou ? row.email : maskEmail(row.email),
      forYou,
    }
  }

  return {
    async list(session: ActiveSession, workspaceId: string): Promise<WorkspaceInvite[]> {
      const standing = standingIn(await store.lock(sql, workspaceId, session.userId, 'read'))
      const refusal = inviteRefusal(standing)
      if (refusal !== null) throw refusal
      // Read as the user: RLS shows invites to owners and admins only.
      const rows = await withUser(
        sql,
        session.claims,
        async (tx) =>
          (
            await tx.query<InviteRow>(
              `select ${inviteColumns} from public.workspace_invites
               where workspace_id = $1 and accepted_at is null and declined_at is null
                 and revoked_at is null
               order by created_at desc, id`,
              [workspaceId],
            )
          ).rows,
        { readOnly: true },
      )
      return Promise.all(rows.map(toInvite))
    },

    async invite(
      session: ActiveSession,
      workspaceId: string,
      email: string,
      role: InviteRole,
      options: { confirmExtraSeat?: boolean | undefined } = {},
    ): Promise<SentInvite> {
      const token = newSessionToken()
      const tokenHash = await sha256Hex(token)
      const { row, name } = await sql.transaction(async (tx) => {
        const workspace = await lockAsInviter(tx, session, workspaceId)
        const { rows: members } = await tx.query(
          `select 1 from public.workspace_members m join auth.users u on u.id = m.user_id
           where m.workspace_id = $1 and lower(u.email) = $2`,
          [workspaceId, email],
        )
        if (members.length > 0) throw new ApiError('already_member')
        const { rows: pending } = await tx.query<InviteRow>(
          `select ${inviteColumns} from public.workspace_invites
           where workspace_id = $1 and email = $2 and accepted_at is null and declined_at is null
             and revoked_at is null for update`,
          [workspaceId, email],
        )
        const open = pending[0]
        if (open !== undefined && stateOf(open) === 'pending') throw new ApiError('already_invited')
        await deps.beforeInvite?.(tx, workspaceId, {
          confirmExtraSeat: options.confirmExtraSeat === true,
        })
        // An expired invite to the address gives way to the new one.
        if (open !== undefined) {
          await tx.query('update public.workspace_invites set revoked_at = $2 where id = $1', [
            open.id,
            now(),
          ])
        }
        const { rows } = await tx.query<InviteRow>(
          `insert into public.workspace_invites
             (workspace_id, email, role, token_hash, invited_by, created_at, expires_at)
           values ($1, $2, $3, $4, $5, $6, $7) returning ${inviteColumns}`,
          [
            workspaceId,
            email,
            role,
            tokenHash,
            session.userId,
            now(),
            new Date(clock.now() + INVITE_LIFETIME_MS),
          ],
        )
        const inserted = rows[0]
        if (inserted === undefined) throw new Error('the invite was not stored')
        await service.announce(tx, await store.memberIds(tx, workspaceId), {
          workspaceId,
          change: 'invites',
          sessionId: null,
        })
        return { row: inserted, name: workspace.name }
      })
      return send(row, token, tokenHash, name, await nameOf(session.userId))
    },

    /** A new link (the old one stops working) valid for 7 more days, sent again. */
    async resend(
      session: ActiveSession,
      workspaceId: string,
      inviteId: string,
    ): Promise<SentInvite> {
      const token = newSessionToken()
      const tokenHash = await sha256Hex(token)
      const { row, name } = await sql.transaction(async (tx) => {
        const workspace = await lockAsInviter(tx, session, workspaceId)
        const current = await inviteById(tx, workspaceId, inviteId)
        const state = stateOf(current)
        if (state !== 'pending' && state !== 'expired') {
          throw new ApiError('invite_used', { details: { state } })
        }
        const { rows } = await tx.query<InviteRow>(
          `update public.workspace_invites set token_hash = $2, expires_at = $3, resent_at = $4
           where id = $1 returning ${inviteColumns}`,
          [inviteId, tokenHash, new Date(clock.now() + INVITE_LIFETIME_MS), now()],
        )
        const updated = rows[0]
        if (updated === undefined) throw unknownInviteId()
        return { row: updated, name: workspace.name }
      })
      return send(row, token, tokenHash, name, await nameOf(session.userId))
    },

    async revoke(
      session: ActiveSession,
      workspaceId: string,
      inviteId: string,
    ): Promise<WorkspaceInvite> {
      const row = await sql.transaction(async (tx) => {
        await lockAsInviter(tx, session, workspaceId)
        const current = await inviteById(tx, workspaceId, inviteId)
        const state = stateOf(current)
        if (state !== 'pending' && state !== 'expired') {
          throw new ApiError('invite_used', { details: { state } })
        }
        const { rows } = await tx.query<InviteRow>(
          `update public.workspace_invites set revoked_at = $2 where id = $1 returning ${inviteColumns}`,
          [inviteId, now()],
        )
        await service.announce(tx, await store.memberIds(tx, workspaceId), {
          workspaceId,
          change: 'invites',
          sessionId: null,
        })
        return rows[0] ?? current
      })
      return toInvite(row)
    },

    preview,

    /** Joins the workspace with the invite's role; it becomes this session's current one. */
    async accept(session: ActiveSession, token: string): Promise<AcceptedInvite> {
      const { workspaceId, joined } = await sql.transaction(async (tx) => {
        const row = await usableInvite(tx, session, token)
        const added = await store.addMember(tx, row.workspace_id, session.userId, row.role)
        await tx.query(
          'update public.workspace_invites set accepted_at = $2, accepted_by = $3 where id = $1',
          [row.id, now(), session.userId],
        )
        await store.setSessionWorkspace(tx, session.id, session.userId, row.workspace_id)
        await service.announce(tx, await store.memberIds(tx, row.workspace_id), {
          workspaceId: row.workspace_id,
          change: 'members',
          sessionId: null,
        })
        await service.announce(tx, [session.userId], {
          workspaceId: row.workspace_id,
          change: 'current',
          sessionId: session.id,
        })
        return { workspaceId: row.workspace_id, joined: added }
      })
      if (joined) await service.membersChanged(workspaceId)
      return { workspace: await service.summaryOf(session, workspaceId) }
    },

    async decline(session: ActiveSession, token: string): Promise<InvitePreview> {
      await sql.transaction(async (tx) => {
        const row = await usableInvite(tx, session, token)
        await tx.query('update public.workspace_invites set declined_at = $2 where id = $1', [
          row.id,
          now(),
        ])
        await service.announce(tx, await store.memberIds(tx, row.workspace_id), {
          workspaceId: row.workspace_id,
          change: 'invites',
          sessionId: null,
        })
      })
      return preview(session, token)
    },
  }
}
