import { Hono } from 'hono'
import type { AppEnv } from './app-env.ts'
import type { Clock } from '../platform/clock.ts'
import type { Readiness } from '../platform/readiness.ts'

export function healthRoutes(deps: { clock: Clock; version: string; readiness: Readiness }) {
  const startedAt = deps.clock.now()
  return (
    new Hono<AppEnv>()
      .get('/', (c) => {
        const uptimeSeconds = Math.max(0, Math.floor((deps.clock.now() - startedAt) / 1000))
        c.header('Cache-Control', 'no-store')
        return c.json({ status: 'ok' as const, version: deps.version, uptimeSeconds })
      })
      // The load balancer's health check (HEAD too): 503 naming each failed check, so a replica
      // that lost its database, is behind on migrations or is draining gets no new requests.
      .get('/ready', async (c) => {
        const report = await deps.readiness.check()
        c.header('Cache-Control', 'no-store')
        const failed = Object.entries(report.checks)
          .filter(([, result]) => !result.ok)
          .map(([name]) => name)
        return report.ok
          ? c.json({ status: 'ready' as const, checks: report.checks }, 200)
          : c.json({ status: 'unavailable' as const, failed, checks: report.checks }, 503)
      })
  )
}
