import { ApiError, remoteNameSchema } from '@tessera/contracts'
import type { RegistrySnapshot } from '@tessera/contracts'
import { Hono } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import { validationFailed } from '../../platform/errors.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { overrideBodySchema } from './remote-overrides.ts'
import type { RemoteOverride, RemoteOverrides } from './remote-overrides.ts'

const nameParam = validator('param', (value: unknown) => {
  const parsed = z.object({ name: remoteNameSchema }).safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

/**
 * `/api/remotes/overrides`: this browser's overrides (a remote loaded from a dev server or a
 * preview build). They live in a cookie, so they apply to this browser only, signed in or not;
 * state-changing calls pass the CSRF check like every other. Each answer lists the overrides as
 * they now stand.
 */
export function remoteOverridesRoutes(deps: {
  overrides: RemoteOverrides
  /** The registry as everyone sees it, to check a remote exists (canaries do not matter here). */
  registrySnapshot: () => Promise<RegistrySnapshot>
}) {
  const { overrides } = deps
  const listing = async (list: readonly RemoteOverride[]) => ({
    allowed: overrides.allowed,
    origins: [...overrides.origins],
    overrides: overrides.describe(list, await deps.registrySnapshot()),
  })

  return new Hono<AppEnv>()
    .use(noStore())
    .get('/', async (c) => c.json(await listing(overrides.read(c)), 200))
    .post('/', requireJson(), jsonBody(overrideBodySchema), async (c) => {
      const body = c.req.valid('json')
      if (!overrides.allowed) {
        throw new ApiError('forbidden', {
          message:
            'This server does not allow overrides: its REMOTE_OVERRIDE_ORIGINS is none. Use the local stack, or ask the operator to allow your preview origin.',
        })
      }
      const snapshot = await deps.registrySnapshot()
      if (!snapshot.remotes.some((remote) => remote.name === body.remote)) {
        throw new ApiError('not_found', {
          message: `There is no remote named ${body.remote} here (the remotes are ${snapshot.remotes.map((remote) => remote.name).join(', ')}).`,
        })
      }
      const problem = overrides.problem(body, snapshot)
      if (problem !== null) {
        throw new ApiError('validation_failed', {
          message: problem,
          details: { issues: [{ path: 'entryUrl', message: problem }] },
        })
      }
      const next = [
        ...overrides.read(c).filter((item) => item.remote !== body.remote),
        {
          remote: body.remote,
          entryUrl: body.entryUrl,
          label: body.label ?? overrides.defaultLabel(body.entryUrl),
        },
      ]
      overrides.write(c, next)
      return c.json(await listing(next), 200)
    })
    .delete('/:name', nameParam, async (c) => {
      const { name } = c.req.valid('param')
      const next = overrides.read(c).filter((item) => item.remote !== name)
      overrides.write(c, next)
      return c.json(await listing(next), 200)
    })
    .delete('/', async (c) => {
      overrides.write(c, [])
      return c.json(await listing([]), 200)
    })
}
