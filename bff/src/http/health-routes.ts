import { Hono } from 'hono'
import type { AppEnv } from './app-env.ts'
import type { Clock } from '../platform/clock.ts'

export function healthRoutes(deps: { clock: Clock; version: string }) {
  const startedAt = deps.clock.now()
  return new Hono<AppEnv>().get('/', (c) => {
    const uptimeSeconds = Math.max(0, Math.floor((deps.clock.now() - startedAt) / 1000))
    c.header('Cache-Control', 'no-store')
    return c.json({ status: 'ok' as const, version: deps.version, uptimeSeconds })
  })
}
