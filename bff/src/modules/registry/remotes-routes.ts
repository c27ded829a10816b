import type { RegistrySnapshot } from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'

/** `GET /api/remotes`: the registry snapshot for this viewer (stable, or their canary share). */
export function remotesRoutes(deps: {
  snapshotFor: (c: Context<AppEnv>) => Promise<RegistrySnapshot>
}) {
  return new Hono<AppEnv>().get('/', async (c) => {
    const snapshot = await deps.snapshotFor(c)
    // The snapshot changes with every deploy and differs per viewer: never cache it anywhere.
    c.header('Cache-Control', 'no-store')
    return c.json(snapshot)
  })
}
