import type { RegistrySnapshot } from '@tessera/contracts'
import { Hono } from 'hono'
import type { AppEnv } from '../app-env.ts'

export function remotesRoutes(deps: { readSnapshot: () => Promise<RegistrySnapshot> }) {
  return new Hono<AppEnv>().get('/', async (c) => {
    const snapshot = await deps.readSnapshot()
    // The snapshot changes with every publish; a cached copy would load stale remotes.
    c.header('Cache-Control', 'no-store')
    return c.json(snapshot)
  })
}
