/**
 * Workspaces and their members (docs/decisions/024): every change runs in one transaction on the
 * BFF's connection that first locks the workspace row, asks rules.ts with what it read, writes,
 * and publishes `workspace.changed` to the affected users in the same transaction. After a commit
 * that changed how many members a team has, `onMembersChanged` runs: the seam seat billing will
 * use (issue 19); a failure there is logged, never undoes the change.
 */
import {
  ApiError,
  WORKSPACE_EVENT_TYPE,
  type WorkspaceEventData,
  type WorkspaceMember,
  type WorkspaceRole,
  type WorkspaceSummary,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { createLiveEvent } from '../events/event-hub.ts'
import type { EventBus } from '../events/event-outbox.ts'
import type { ActiveSession } from '../identity/sessions.ts'
import { userTopic } from '../identity/auth-events.ts'
import {
  leaveRefusal,
  removeRefusal,
  renameRefusal,
  roleChangeRefusal,
  type Standing,
} from './rules.ts'
import type { UsersChanged } from './session-contexts.ts'
import { unknownWorkspace } from './workspaces-store.ts'
import type { LockedWorkspace, WorkspacesStore } from './workspaces-store.ts'

/**
 * Called after a commit that changed the number of members of a team workspace (a join, a
 * removal, a leave). Seat billing hooks in here; until then it does nothing.
 */
export type OnMembersChanged = (workspaceId: string) => void | Promise<void>

export interface WorkspacesServiceDeps {
  sql: Sql
  store: WorkspacesStore
  bus: EventBus
  clock: Clock
  logger: Logger
  onMembersChanged: OnMembersChanged
  /** Drops what every replica keeps of these users' workspaces (session-contexts.ts). */
  usersChanged?: UsersChanged | undefined
}

/** The caller's standing in a locked workspace, or the refusal of a non-member. */
export function standingIn(workspace: LockedWorkspace | null): Standing & LockedWorkspace {
  if (workspace === null || workspace.role === null) throw unknownWorkspace()
  return { ...workspace, role: workspace.role }
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>

export function createWorkspacesService(deps: WorkspacesServiceDeps) {
  const { sql, store, bus, clock, logger } = deps

  /** Tells each user's tabs that a workspace changed, in the transaction of the change. */
  const announce = async (
    tx: SqlQueryable,
    userIds: Iterable<string>,
    data: WorkspaceEventData,
  ): Promise<void> => {
    const users = new Set(userIds)
    await deps.usersChanged?.(users, tx)
    for (const userId of users) {
      await bus.publish(
        { topic: userTopic(userId), event: createLiveEvent(WORKSPACE_EVENT_TYPE, data, clock) },
        tx,
      )
    }
  }

  const membersChanged = async (workspaceId: string): Promise<void> => {
    try {
      await deps.onMembersChanged(workspaceId)
    } catch (error) {
      logger.error('the members-changed hook failed', { error, workspaceId })
    }
  }

  /** The session's current workspace: the one it chose while still a member, else personal. */
  const currentOf = async (session: ActiveSession): Promise<string> =>
    (await store.sessionWorkspace(session.id, session.userId)) ??
    (await store.ensurePersonal(session.userId))

  const summaryOf = async (session: ActiveSession, workspaceId: string) => {
    const summary = await store.summary(session.claims, workspaceId, await currentOf(session))
    if (summary === null) throw unknownWorkspace()
    return summary
  }

  const members = async (session: ActiveSession, workspaceId: string) => {
    const list = await store.members(session.claims, workspaceId)
    if (list === null) throw unknownWorkspace()
    return list
  }

  const leave = async (session: ActiveSession, workspaceId: string): Promise<void> => {
    await sql.transaction(async (tx) => {
      const workspace = standingIn(await store.lock(tx, workspaceId, session.userId))
      const refusal = leaveRefusal(workspace, workspace.owners)
      if (refusal !== null) throw refusal
      await dropMember(tx, workspaceId, session.userId)
    })
    await membersChanged(workspaceId)
  }

  return {
    announce,
    membersChanged,
    currentOf,
    summaryOf,

    async list(
      session: ActiveSession,
    ): Promise<{ workspaces: WorkspaceSummary[]; currentId: string }> {
      const currentId = await currentOf(session)
      return { workspaces: await store.list(session.claims, currentId), currentId }
    },

    async create(session: ActiveSession, name: string): Promise<WorkspaceSummary> {
      const id = await sql.transaction(async (tx) => {
        const created = await store.createTeam(tx, session.userId, name)
        await announce(tx, [session.userId], {
          workspaceId: created,
          change: 'created',
          sessionId: null,
        })
        return created
      })
      return summaryOf(session, id)
    },

    async rename(
      session: ActiveSession,
      workspaceId: string,
      name: string,
    ): Promise<WorkspaceSummary> {
      await sql.transaction(async (tx) => {
        const workspace = standingIn(await store.lock(tx, workspaceId, session.userId))
        const refusal = renameRefusal(workspace)
        if (refusal !== null) throw refusal
        await store.rename(tx, workspaceId, name)
        await announce(tx, await store.memberIds(tx, workspaceId), {
          workspaceId,
          change: 'renamed',
          sessionId: null,
        })
      })
      return summaryOf(session, workspaceId)
    },

    /** Makes the workspace this session's current one; its other tabs follow the live event. */
    async switchTo(session: ActiveSession, workspaceId: string): Promise<WorkspaceSummary> {
      await sql.transaction(async (tx) => {
        if ((await store.memberRole(tx, workspaceId, session.userId)) === null)
          throw unknownWorkspace()
        await store.setSessionWorkspace(tx, session.id, session.userId, workspaceId)
        await announce(tx, [session.userId], {
          workspaceId,
          change: 'current',
          sessionId: session.id,
        })
      })
      return summaryOf(session, workspaceId)
    },

    members,
    leave,

    async changeRole(
      session: ActiveSession,
      workspaceId: string,
      userId: string,
      role: WorkspaceRole,
    ): Promise<WorkspaceMember> {
      await sql.transaction(async (tx) => {
        const workspace = standingIn(await store.lock(tx, workspaceId, session.userId))
        const target = await store.memberRole(tx, workspaceId, userId)
        if (target === null) throw unknownMember()
        const refusal = roleChangeRefusal(workspace, target, role, workspace.owners)
        if (refusal !== null) throw refusal
        if (target === role) return
        await store.setRole(tx, workspaceId, userId, role)
        await announce(tx, await store.memberIds(tx, workspaceId), {
          workspaceId,
          change: 'members',
          sessionId: null,
        })
      })
      const member = (await members(session, workspaceId)).find((m) => m.userId === userId)
      if (member === undefined) throw unknownMember()
      return member
    },

    /** Removes someone else; removing oneself is leaving (the same rules as `leave`). */
    async remove(session: ActiveSession, workspaceId: string, userId: string): Promise<void> {
      if (userId === session.userId) return leave(session, workspaceId)
      await sql.transaction(async (tx) => {
        const workspace = standingIn(await store.lock(tx, workspaceId, session.userId))
        const target = await store.memberRole(tx, workspaceId, userId)
        if (target === null) throw unknownMember()
        const refusal = removeRefusal(workspace, target)
        if (refusal !== null) throw refusal
        await dropMember(tx, workspaceId, userId)
      })
      await membersChanged(workspaceId)
    },
  }

  /** Removes the member, moves their sessions home, and tells them and those who stay. */
  async function dropMember(tx: SqlQueryable, workspaceId: string, userId: string) {
    await store.removeMember(tx, workspaceId, userId)
    await store.leaveSessions(tx, workspaceId, userId)
    await announce(tx, [userId], { workspaceId, change: 'removed', sessionId: null })
    await announce(tx, await store.memberIds(tx, workspaceId), {
      workspaceId,
      change: 'members',
      sessionId: null,
    })
  }
}

/** The refusal for a user id that is not a member of the workspace. */
export function unknownMember(): ApiError {
  return new ApiError('not_found', {
    message: 'This person is not a member of the workspace (any more). Reload the member list.',
    details: { reason: 'member_not_found' },
  })
}
