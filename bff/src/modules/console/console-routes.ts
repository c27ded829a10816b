/**
 * `/api/console`: the operator console's API (contracts/src/console.ts). Every route is behind
 * the session cookie (as all of /api), CSRF for writes (as every cookie route) and the operator
 * guard; reads run as the user (RLS checks the role again), actions go through the deploy service
 * with the operator as the actor, so the audit log names them.
 */
import {
  ApiError,
  auditQuerySchema,
  canaryBodySchema,
  channelMoveBodySchema,
  grantOperatorBodySchema,
  issueTokenBodySchema,
  operatorIdParamSchema,
  promoteBodySchema,
  remoteNameSchema,
  type ConsoleHealth,
  type ConsoleRemotesResponse,
  type GrantedOperator,
  type IssuedToken,
  type OperatorsResponse,
  type RevokedOperator,
  type RevokedTokenResponse,
} from '@tessera/contracts'
import { Hono } from 'hono'
import type { MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import type { Clock } from '../../platform/clock.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { validationFailed } from '../../platform/errors.ts'
import type { OperatorActor } from '../deploy/actor.ts'
import type { DeployService } from '../deploy/deploy-service.ts'
import type { DeployTokens } from '../deploy/tokens.ts'
import { auditCsv } from './audit.ts'
import type { ConsoleStore } from './console-store.ts'
import { unknownRemote } from './console-store.ts'
import type { ReplicaHeartbeat, runProbes } from './health.ts'
import type { OperatorRoles } from './operator-roles.ts'

export interface ConsoleRoutesDeps {
  roles: OperatorRoles
  store: ConsoleStore
  deploy: DeployService
  tokens: DeployTokens
  clock: Clock
  canary: ConsoleRemotesResponse['canary']
  heartbeat: ReplicaHeartbeat
  /** This replica's probes of its dependencies (health.ts). */
  checks: () => ReturnType<typeof runProbes>
}

type ConsoleEnv = {
  Variables: AppEnv['Variables'] & { operator: OperatorActor & { claims: UserClaims } }
}

/** The sentence every refusal of the guard carries. */
export const NOT_AN_OPERATOR =
  'The operator console is for operators only. Ask an operator to grant you the role (npm run operators -- grant <your email>).'

/** Signed in and an operator (the role read from the database), or 403 `forbidden`. */
export function requireOperator(roles: OperatorRoles): MiddlewareHandler<ConsoleEnv> {
  return async function requireOperator(c, next) {
    const session = await c.var.auth.current()
    if (session === null) {
      throw new ApiError('forbidden', {
        message: `Sign in first. ${NOT_AN_OPERATOR}`,
        details: { reason: 'signed_out' },
      })
    }
    if (!(await roles.isOperator(session.userId))) {
      throw new ApiError('forbidden', {
        message: NOT_AN_OPERATOR,
        details: { reason: 'not_operator' },
      })
    }
    c.set('operator', {
      source: 'operator',
      userId: session.userId,
      label: session.user.email,
      claims: session.claims,
    })
    return next()
  }
}

const nameParam = validator('param', (value: unknown) => {
  const parsed = z.object({ name: remoteNameSchema }).safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

const idParam = validator('param', (value: unknown) => {
  const parsed = z.object({ id: z.uuid({ error: 'A token id is a UUID.' }) }).safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

const operatorParam = validator('param', (value: unknown) => {
  const parsed = operatorIdParamSchema.safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

const auditQuery = validator('query', (value: unknown) => {
  const parsed = auditQuerySchema.safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

/** The actor the deploy service and the audit log see (without the claims). */
const actorOf = (operator: ConsoleEnv['Variables']['operator']): OperatorActor => ({
  source: operator.source,
  userId: operator.userId,
  label: operator.label,
})

export function consoleRoutes(deps: ConsoleRoutesDeps) {
  const { store, deploy, clock } = deps
  const now = () => new Date(clock.now()).toISOString()
  return (
    new Hono<ConsoleEnv>()
      .use(noStore())
      .use(requireOperator(deps.roles))
      .get('/remotes', async (c) => {
        const remotes = await store.remotes(c.var.operator.claims)
        return c.json({ remotes, canary: deps.canary, generatedAt: now() }, 200)
      })
      .get('/remotes/:name', nameParam, async (c) => {
        const { name } = c.req.valid('param')
        const detail = await store.remote(c.var.operator.claims, name)
        if (detail === null) throw unknownRemote(name)
        return c.json(detail, 200)
      })
      .post(
        '/remotes/:name/promote',
        nameParam,
        requireJson(),
        jsonBody(promoteBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deploy.promote(actorOf(c.var.operator), name, c.req.valid('json'))
          return c.json(change, 200)
        },
      )
      .post(
        '/remotes/:name/canary',
        nameParam,
        requireJson(),
        jsonBody(canaryBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deploy.startCanary(
            actorOf(c.var.operator),
            name,
            c.req.valid('json'),
          )
          return c.json(change, 200)
        },
      )
      .post(
        '/remotes/:name/canary/stop',
        nameParam,
        requireJson(),
        jsonBody(channelMoveBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deploy.stopCanary(actorOf(c.var.operator), name, c.req.valid('json'))
          return c.json(change, 200)
        },
      )
      .post(
        '/remotes/:name/rollback',
        nameParam,
        requireJson(),
        jsonBody(channelMoveBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deploy.rollback(actorOf(c.var.operator), name, c.req.valid('json'))
          return c.json(change, 200)
        },
      )
      .get('/audit', auditQuery, async (c) => {
        const query = c.req.valid('query')
        const page = await store.audit(c.var.operator.claims, query)
        if (query.format !== 'csv') return c.json(page, 200)
        const day = now().slice(0, 10)
        return c.body(auditCsv(page.entries), 200, {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': `attachment; filename="tessera-audit-${day}.csv"`,
        })
      })
      .get('/tokens', async (c) => {
        return c.json({ tokens: await store.tokens(c.var.operator.claims) }, 200)
      })
      .post('/tokens', requireJson(), jsonBody(issueTokenBodySchema), async (c) => {
        const { remote, label } = c.req.valid('json')
        const issued = await deps.tokens.issue(remote, label, actorOf(c.var.operator))
        const listed = await store.tokens(c.var.operator.claims)
        const info = listed.find((token) => token.id === issued.id)
        if (info === undefined) throw new Error('the issued token is not in the list')
        const body: IssuedToken = { token: issued.token, info }
        return c.json(body, 201)
      })
      .post('/tokens/:id/revoke', idParam, async (c) => {
        const { id } = c.req.valid('param')
        if (!(await deps.tokens.revoke(id, actorOf(c.var.operator)))) {
          throw new ApiError('not_found', {
            message:
              'No live deploy token has this id: it may be revoked already. Reload the list.',
          })
        }
        const info = (await store.tokens(c.var.operator.claims)).find((token) => token.id === id)
        const body: RevokedTokenResponse = { token: info ?? null }
        return c.json(body, 200)
      })
      .get('/health', async (c) => {
        const [replicas, checks] = await Promise.all([deps.heartbeat.replicas(), deps.checks()])
        const body: ConsoleHealth = { replicas, checks, checkedAt: now() }
        return c.json(body, 200)
      })
      .get('/operators', async (c) => {
        const body: OperatorsResponse = {
          operators: await deps.roles.listAs(c.var.operator.claims),
        }
        return c.json(body, 200)
      })
      // The role's writes are `npm run operators -- grant|revoke`'s own (OperatorRoles): audited,
      // and every replica told in the same transaction; here the actor is the operator.
      .post('/operators', requireJson(), jsonBody(grantOperatorBodySchema), async (c) => {
        const { email } = c.req.valid('json')
        const { outcome, operator } = await deps.roles.grant(email, actorOf(c.var.operator))
        const body: GrantedOperator = { operator, outcome }
        return outcome === 'granted' ? c.json(body, 201) : c.json(body, 200)
      })
      .post('/operators/:userId/revoke', operatorParam, async (c) => {
        const { userId } = c.req.valid('param')
        const { operator } = await deps.roles.revoke({ userId }, actorOf(c.var.operator))
        if (operator === null) {
          throw new ApiError('not_found', {
            message:
              'No operator has this user id: the role may be revoked already. Reload the list.',
          })
        }
        const body: RevokedOperator = { operator }
        return c.json(body, 200)
      })
  )
}
