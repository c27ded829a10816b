/**
 * `/api/workspaces` and `/api/invites` (contracts/src/workspaces.ts, docs/decisions/024). Every
 * route needs a session (401 `unauthenticated` without); writes pass CSRF and the body limit like
 * every cookie route (app.ts). Who may do what is decided in the service's transaction.
 */
import {
  ApiError,
  changeMemberRoleBodySchema,
  createInviteBodySchema,
  createWorkspaceBodySchema,
  inviteTokenParamSchema,
  renameWorkspaceBodySchema,
  switchWorkspaceBodySchema,
  workspaceIdParamSchema,
  workspaceInviteParamSchema,
  workspaceMemberParamSchema,
  type WorkspaceMembersResponse,
  type WorkspacesResponse,
} from '@tessera/contracts'
import { Hono } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { validationFailed } from '../../platform/errors.ts'
import type { Invites } from './invites.ts'
import type { WorkspacesService } from './workspaces-service.ts'

const params = <T extends z.core.$ZodType>(schema: T) =>
  validator('param', (value: unknown): z.output<T> => {
    const parsed = z.safeParse(schema, value)
    if (!parsed.success) throw validationFailed(parsed.error)
    return parsed.data
  })

// A token that is not the shape of ours names no invite: the same answer as an unknown one.
const tokenParam = validator('param', (value: unknown) => {
  const parsed = inviteTokenParamSchema.safeParse(value)
  if (!parsed.success) {
    throw new ApiError('not_found', {
      message: 'This is not an invite link. Open the link from the invite email.',
      details: { reason: 'invite_not_found' },
    })
  }
  return parsed.data
})

export interface WorkspacesRoutesDeps {
  service: WorkspacesService
  invites: Invites
}

/** `/api/workspaces`: the user's workspaces, their members and invites. */
export function workspacesRoutes(deps: WorkspacesRoutesDeps) {
  const { service, invites } = deps
  const idParam = params(workspaceIdParamSchema)
  const memberParam = params(workspaceMemberParamSchema)
  const inviteParam = params(workspaceInviteParamSchema)
  return new Hono<AppEnv>()
    .use(noStore())
    .get('/', async (c) => {
      const body: WorkspacesResponse = await service.list(await c.var.auth.require())
      return c.json(body, 200)
    })
    .post('/', requireJson(), jsonBody(createWorkspaceBodySchema), async (c) => {
      const session = await c.var.auth.require()
      const workspace = await service.create(session, c.req.valid('json').name)
      return c.json({ workspace }, 201)
    })
    .post('/current', requireJson(), jsonBody(switchWorkspaceBodySchema), async (c) => {
      const session = await c.var.auth.require()
      const workspace = await service.switchTo(session, c.req.valid('json').workspaceId)
      return c.json({ workspace }, 200)
    })
    .patch('/:id', idParam, requireJson(), jsonBody(renameWorkspaceBodySchema), async (c) => {
      const session = await c.var.auth.require()
      const { id } = c.req.valid('param')
      const workspace = await service.rename(session, id, c.req.valid('json').name)
      return c.json({ workspace }, 200)
    })
    .get('/:id/members', idParam, async (c) => {
      const session = await c.var.auth.require()
      const body: WorkspaceMembersResponse = {
        members: await service.members(session, c.req.valid('param').id),
      }
      return c.json(body, 200)
    })
    .patch(
      '/:id/members/:userId',
      memberParam,
      requireJson(),
      jsonBody(changeMemberRoleBodySchema),
      async (c) => {
        const session = await c.var.auth.require()
        const { id, userId } = c.req.valid('param')
        const member = await service.changeRole(session, id, userId, c.req.valid('json').role)
        return c.json({ member }, 200)
      },
    )
    .delete('/:id/members/:userId', memberParam, async (c) => {
      const session = await c.var.auth.require()
      const { id, userId } = c.req.valid('param')
      await service.remove(session, id, userId)
      return c.body(null, 204)
    })
    .post('/:id/leave', idParam, async (c) => {
      const session = await c.var.auth.require()
      await service.leave(session, c.req.valid('param').id)
      return c.body(null, 204)
    })
    .get('/:id/invites', idParam, async (c) => {
      const session = await c.var.auth.require()
      return c.json({ invites: await invites.list(session, c.req.valid('param').id) }, 200)
    })
    .post('/:id/invites', idParam, requireJson(), jsonBody(createInviteBodySchema), async (c) => {
      const session = await c.var.auth.require()
      const { email, role, confirmExtraSeat } = c.req.valid('json')
      const sent = await invites.invite(session, c.req.valid('param').id, email, role, {
        confirmExtraSeat,
      })
      return c.json(sent, 201)
    })
    .post('/:id/invites/:inviteId/resend', inviteParam, async (c) => {
      const session = await c.var.auth.require()
      const { id, inviteId } = c.req.valid('param')
      return c.json(await invites.resend(session, id, inviteId), 200)
    })
    .delete('/:id/invites/:inviteId', inviteParam, async (c) => {
      const session = await c.var.auth.require()
      const { id, inviteId } = c.req.valid('param')
      return c.json({ invite: await invites.revoke(session, id, inviteId) }, 200)
    })
}

/** `/api/invites/:token`: an invite link, seen, accepted or declined by the signed-in user. */
export function invitesRoutes(deps: { invites: Invites }) {
  const { invites } = deps
  return new Hono<AppEnv>()
    .use(noStore())
    .get('/:token', tokenParam, async (c) => {
      const session = await c.var.auth.require()
      return c.json(await invites.preview(session, c.req.valid('param').token), 200)
    })
    .post('/:token/accept', tokenParam, async (c) => {
      const session = await c.var.auth.require()
      return c.json(await invites.accept(session, c.req.valid('param').token), 200)
    })
    .post('/:token/decline', tokenParam, async (c) => {
      const session = await c.var.auth.require()
      return c.json(await invites.decline(session, c.req.valid('param').token), 200)
    })
}
