import {
  ApiError,
  canaryBodySchema,
  channelMoveBodySchema,
  promoteBodySchema,
  registerVersionBodySchema,
  remoteNameSchema,
} from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context, MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import type { Clock } from '../../platform/clock.ts'
import { validationFailed } from '../../platform/errors.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { rateLimit } from '../../http/middleware/rate-limit.ts'
import type { DeployService } from './deploy-service.ts'
import type { Deployer, DeployTokens } from './tokens.ts'
import { localLimiters } from '../../platform/rate-limiter.ts'
import type { Limiters } from '../../platform/rate-limiter.ts'

export interface DeployRoutesDeps {
  deploy: DeployService
  tokens: DeployTokens
  clock: Clock
  /** Deploy requests per client per minute (failed token guesses included). */
  ratePerMinute: number
  /** Where the limit is counted: this process by default, or shared by the replicas. */
  limiters?: Limiters
  clientKey?: (c: Context) => string | undefined
}

type DeployEnv = { Variables: AppEnv['Variables'] & { deployer: Deployer } }

/** Where the deploy API lives: bearer tokens only, so the cookie-based CSRF check does not apply. */
export const DEPLOY_PATH_PREFIX = '/api/deploy/'

const nameParam = validator('param', (value: unknown) => {
  const parsed = z.object({ name: remoteNameSchema }).safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

/**
 * Authenticates the deploy token and checks it is this remote's. The session cookie is never read
 * here: a browser's ambient credentials confer nothing on the deploy API.
 */
function deployToken(tokens: DeployTokens): MiddlewareHandler<DeployEnv> {
  return async function deployToken(c, next) {
    const header = c.req.header('authorization') ?? ''
    const match = /^Bearer\s+(\S+)$/i.exec(header)
    if (match?.[1] === undefined) {
      throw new ApiError('unauthenticated', {
        message:
          'Deploy requests need a deploy token: send "Authorization: Bearer <token>" (the CLI reads TESSERA_DEPLOY_TOKEN).',
      })
    }
    const deployer = await tokens.authenticate(match[1])
    if (deployer === null) {
      throw new ApiError('unauthenticated', {
        message: 'This deploy token is not valid: it is unknown or was revoked. Ask for a new one.',
      })
    }
    const remote = c.req.param('name')
    if (remote !== undefined && remote !== deployer.remote) {
      throw new ApiError('forbidden', {
        message: `This deploy token is for ${deployer.remote}; it cannot deploy ${remote}. Use ${remote}’s own token.`,
        details: { tokenRemote: deployer.remote, remote },
      })
    }
    c.set('deployer', deployer)
    return next()
  }
}

/** `/api/deploy`: teams register builds and move their remote's channels with a deploy token. */
export function deployRoutes(deps: DeployRoutesDeps) {
  const limiters = deps.limiters ?? localLimiters(deps.clock)
  const limiter = limiters({ name: 'deploy', limit: deps.ratePerMinute, windowMs: 60_000 })
  const authorized = deployToken(deps.tokens)
  return (
    new Hono<DeployEnv>()
      .use(noStore())
      // Before the token check, so guessing tokens is throttled too.
      .use(rateLimit({ limiter, keyOf: deps.clientKey }))
      .get('/remotes/:name', nameParam, authorized, async (c) => {
        return c.json(await deps.deploy.state(c.req.valid('param').name), 200)
      })
      .post(
        '/remotes/:name/versions',
        nameParam,
        authorized,
        requireJson(),
        jsonBody(registerVersionBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const body = c.req.valid('json')
          if (body.descriptor.name !== name) {
            throw new ApiError('validation_failed', {
              message: `The descriptor is for ${body.descriptor.name}, but it was sent to ${name}.`,
              details: {
                issues: [
                  { path: 'descriptor.name', message: `must be ${name}, the remote in the path` },
                ],
              },
            })
          }
          const { status, result } = await deps.deploy.registerVersion(c.get('deployer'), body)
          return c.json(result, status)
        },
      )
      .post(
        '/remotes/:name/promote',
        nameParam,
        authorized,
        requireJson(),
        jsonBody(promoteBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          return c.json(
            await deps.deploy.promote(c.get('deployer'), name, c.req.valid('json')),
            200,
          )
        },
      )
      .post(
        '/remotes/:name/canary',
        nameParam,
        authorized,
        requireJson(),
        jsonBody(canaryBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deps.deploy.startCanary(c.get('deployer'), name, c.req.valid('json'))
          return c.json(change, 200)
        },
      )
      .post(
        '/remotes/:name/canary/stop',
        nameParam,
        authorized,
        requireJson(),
        jsonBody(channelMoveBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deps.deploy.stopCanary(c.get('deployer'), name, c.req.valid('json'))
          return c.json(change, 200)
        },
      )
      .post(
        '/remotes/:name/rollback',
        nameParam,
        authorized,
        requireJson(),
        jsonBody(channelMoveBodySchema),
        async (c) => {
          const { name } = c.req.valid('param')
          const change = await deps.deploy.rollback(c.get('deployer'), name, c.req.valid('json'))
          return c.json(change, 200)
        },
      )
  )
}
