/**
 * `PUT /api/workspaces/:id/members/:userId/cap` (docs/decisions/027): a member's monthly tokens
 * from the team's pool, set by owners and admins (an admin cannot cap an owner). It lives with the
 * assistant, whose holds read the cap (team-quota.ts), and is mounted beside the workspaces
 * routes; like every change of a workspace's members it takes the workspace row's lock first
 * (workspaces-store.ts) and tells the members through `workspace.changed`.
 */
import { ApiError, memberTokenCapBodySchema, workspaceMemberParamSchema } from '@tessera/contracts'
import type { WorkspaceMember } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { Hono } from 'hono'
import { validator } from 'hono/validator'
import type { AppEnv } from '../../http/app-env.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { validationFailed } from '../../platform/errors.ts'
import type { ActiveSession } from '../identity/sessions.ts'
import type { WorkspacesService } from '../workspaces/workspaces-service.ts'
import { standingIn, unknownMember } from '../workspaces/workspaces-service.ts'
import { createWorkspacesStore } from '../workspaces/workspaces-store.ts'

export function createMemberCaps(deps: { sql: Sql; service: WorkspacesService }) {
  const { sql, service } = deps
  const store = createWorkspacesStore(sql)
  return {
    async setCap(
      session: ActiveSession,
      workspaceId: string,
      userId: string,
      cap: number | null,
    ): Promise<WorkspaceMember> {
      await sql.transaction(async (tx) => {
        const workspace = standingIn(await store.lock(tx, workspaceId, session.userId))
        if (workspace.kind === 'personal') throw new ApiError('personal_workspace')
        if (workspace.role === 'member') {
          throw new ApiError('workspace_role_required', {
            message: 'Only owners and admins can set how many tokens a member may use.',
            details: { reason: 'token_cap' },
          })
        }
        const target = await store.memberRole(tx, workspaceId, userId)
        if (target === null) throw unknownMember()
        if (workspace.role === 'admin' && target === 'owner') {
          throw new ApiError('workspace_role_required', {
            message: 'Only an owner can set an owner’s token cap. Ask one of the owners.',
            details: { reason: 'token_cap_owner' },
          })
        }
        await tx.query(
          `update public.workspace_members set monthly_token_cap = $3
           where workspace_id = $1 and user_id = $2`,
          [workspaceId, userId, cap],
        )
        await service.announce(tx, await store.memberIds(tx, workspaceId), {
          workspaceId,
          change: 'members',
          sessionId: null,
        })
      })
      const member = (await service.members(session, workspaceId)).find((m) => m.userId === userId)
      if (member === undefined) throw unknownMember()
      return member
    },
  }
}

/** The cap route, mounted at `/api/workspaces` beside the workspaces module's own routes. */
export function memberCapRoutes(deps: { sql: Sql; service: WorkspacesService }) {
  const caps = createMemberCaps(deps)
  const memberParam = validator('param', (value: unknown) => {
    const parsed = workspaceMemberParamSchema.safeParse(value)
    if (!parsed.success) throw validationFailed(parsed.error)
    return parsed.data
  })
  return new Hono<AppEnv>()
    .use('/:id/members/:userId/cap', noStore())
    .put(
      '/:id/members/:userId/cap',
      memberParam,
      requireJson(),
      jsonBody(memberTokenCapBodySchema),
      async (c) => {
        const session = await c.var.auth.require()
        const { id, userId } = c.req.valid('param')
        const member = await caps.setCap(session, id, userId, c.req.valid('json').monthlyTokens)
        return c.json({ member }, 200)
      },
    )
}
