import { remoteErrorReportSchema, remoteLoadReportSchema } from '@tessera/contracts'
import type { RemoteErrorReport, RemoteLoadReport } from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import { bodySize } from '../../http/middleware/body-size.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { rateLimit } from '../../http/middleware/rate-limit.ts'
import { localLimiters } from '../../platform/rate-limiter.ts'
import type { Limiters } from '../../platform/rate-limiter.ts'
import type { TelemetryStore } from './telemetry-store.ts'

export interface TelemetryDeps {
  logger: Logger
  clock: Clock
  store: TelemetryStore
  bodyLimitBytes: number
  /** Reports per client per minute. */
  ratePerMinute: number
  /** Where the limit is counted: this process by default, or shared by the replicas. */
  limiters?: Limiters
  clientKey?: (c: Context) => string | undefined
  /**
   * Told of every accepted report after it is recorded (the canary guard). Its failures are
   * logged, never turned into the reporter's problem.
   */
  onReport?: (report: RemoteErrorReport, c: Context<AppEnv>) => Promise<void>
  /** Told of every accepted load report (the console's load figures); failures only logged. */
  onLoads?: (report: RemoteLoadReport) => Promise<void>
}

/**
 * What the host reports about remotes (CSRF is checked for all /api): failures while loading or
 * running them, and how long each took to show. Both count against one limit per client.
 */
export function telemetryRoutes(deps: TelemetryDeps) {
  const limiters = deps.limiters ?? localLimiters(deps.clock)
  const limiter = limiters({ name: 'telemetry', limit: deps.ratePerMinute, windowMs: 60_000 })
  return new Hono<AppEnv>()
    .post(
      '/remote-loads',
      rateLimit({ limiter, keyOf: deps.clientKey }),
      bodySize({ maxBytes: deps.bodyLimitBytes }),
      requireJson(),
      jsonBody(remoteLoadReportSchema),
      async (c) => {
        const report = c.req.valid('json')
        if (deps.onLoads !== undefined) {
          try {
            await deps.onLoads(report)
          } catch (error) {
            deps.logger.error('remote load report follow-up failed', {
              error,
              requestId: c.get('requestId'),
            })
          }
        }
        return c.json({ accepted: true as const }, 202)
      },
    )
    .post(
      '/remote-errors',
      rateLimit({ limiter, keyOf: deps.clientKey }),
      bodySize({ maxBytes: deps.bodyLimitBytes }),
      requireJson(),
      jsonBody(remoteErrorReportSchema),
      async (c) => {
        const report = c.req.valid('json')
        const requestId = c.get('requestId')
        deps.logger.warn('remote error reported', { ...report, requestId })
        deps.store.record({ ...report, at: new Date(deps.clock.now()).toISOString(), requestId })
        if (deps.onReport !== undefined) {
          try {
            await deps.onReport(report, c)
          } catch (error) {
            deps.logger.error('remote error report follow-up failed', { error, requestId })
          }
        }
        return c.json({ accepted: true as const }, 202)
      },
    )
}
