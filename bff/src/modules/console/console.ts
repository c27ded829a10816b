/**
 * The operator console's backend, built once per app: the role, the figures, the heartbeat and
 * the routes (console-routes.ts). app.ts wires it with a few lines; everything else is here.
 */
import type { RemoteErrorReport, RemoteLoadReport } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Clock } from '../../platform/clock.ts'
import type { Env } from '../../platform/env.ts'
import type { Logger } from '../../platform/logger.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'
import type { DeployService } from '../deploy/deploy-service.ts'
import { createDeployTokens } from '../deploy/tokens.ts'
import type { CacheInvalidations } from '../events/cache-invalidation.ts'
import { consoleRoutes } from './console-routes.ts'
import { createConsoleStore } from './console-store.ts'
import { createReplicaHeartbeat, dependencyProbes, runHeartbeat, runProbes } from './health.ts'
import { createOperatorRoles } from './operator-roles.ts'
import { createTrafficStore } from './traffic.ts'

/** How often each BFF writes its heartbeat. */
export const HEARTBEAT_EVERY_MS = 10_000
/** How long one dependency probe may take on the health page. */
export const PROBE_TIMEOUT_MS = 2_000

export type ConsoleEnvSettings = Pick<
  Env,
  | 'CANARY_ERROR_RATE_THRESHOLD'
  | 'CANARY_MIN_CLIENTS'
  | 'CANARY_WINDOW_SECONDS'
  | 'SUPABASE_URL'
  | 'SUPABASE_ANON_KEY'
  | 'STRIPE_API_URL'
  | 'STRIPE_SECRET_KEY'
  | 'OPENAI_BASE_URL'
  | 'OPENAI_API_KEY'
>

export function createConsole(deps: {
  sql: Sql
  clock: Clock
  logger: Logger
  env: ConsoleEnvSettings
  deploy: DeployService
  invalidations: CacheInvalidations
  /** The shared counters (canary clients); undefined without a database. */
  counters: SharedCounters | undefined
  /** The shared counters' namespace (tests); the error minutes use the same. */
  namespace?: string | undefined
  version: string
  /** With it, this process writes its heartbeat until the signal aborts (the Node entry's drain). */
  background?: AbortSignal | undefined
  fetch?: typeof fetch
}) {
  const { sql, clock, logger, env } = deps
  const roles = createOperatorRoles({
    sql,
    clock,
    publish: (invalidation, tx) => deps.invalidations.publish(invalidation, tx),
  })
  deps.invalidations.subscribe((invalidation) => {
    if (invalidation.cache === 'roles') roles.forget(invalidation.userId)
  })
  const windowMs = env.CANARY_WINDOW_SECONDS * 1000
  const traffic = createTrafficStore({
    sql,
    clock,
    logger,
    windowMs,
    counters: deps.counters,
    ...(deps.namespace === undefined ? {} : { namespace: deps.namespace }),
  })
  const heartbeat = createReplicaHeartbeat({ sql, clock, version: deps.version })
  if (deps.background !== undefined) {
    runHeartbeat(heartbeat, { everyMs: HEARTBEAT_EVERY_MS, signal: deps.background, logger })
  }
  const probes = dependencyProbes({ sql, fetch: deps.fetch ?? fetch, env })
  const tokens = createDeployTokens({ sql, clock })
  const store = createConsoleStore({ sql, clock, logger, traffic })

  return {
    roles,
    traffic,
    heartbeat,
    /**
     * Wraps the telemetry follow-up: each error report also counts in its minute (the
     * sparklines), unless there is no database to count in.
     */
    countingErrors<F extends (report: RemoteErrorReport, c: Context<AppEnv>) => Promise<void>>(
      follow: F,
    ) {
      if (deps.counters === undefined) return follow
      let warnedAt = -Infinity
      return async (report: RemoteErrorReport, c: Context<AppEnv>) => {
        // Not awaited: a slow or failing database must not hold the report's answer (the rate
        // limit and the canary guard have their own fallbacks); one warning a minute at most.
        traffic.recordError(report.remote, report.version).catch((error: unknown) => {
          if (clock.now() - warnedAt < 60_000) return
          warnedAt = clock.now()
          logger.warn('could not count an error report for the console', { error })
        })
        await follow(report, c)
      }
    },
    /** Counts each page's load report in its minute; nothing when there is no database. */
    countLoads:
      deps.counters === undefined
        ? undefined
        : (report: RemoteLoadReport) => traffic.recordLoads(report.loads),
    routes: () =>
      consoleRoutes({
        roles,
        store,
        deploy: deps.deploy,
        tokens,
        clock,
        canary: {
          windowSeconds: env.CANARY_WINDOW_SECONDS,
          threshold: env.CANARY_ERROR_RATE_THRESHOLD,
          minClients: env.CANARY_MIN_CLIENTS,
        },
        heartbeat,
        checks: () => runProbes(probes, { timeoutMs: PROBE_TIMEOUT_MS }),
      }),
  }
}
