import type { Sql } from '@tessera/db/sql'
import { createCanaryMonitor, createSharedCanaryMonitor } from '../modules/deploy/canary-monitor.ts'
import {
  createSharedSignInThrottle,
  createSignInThrottle,
} from '../modules/identity/sign-in-throttle.ts'
import type { Clock } from '../platform/clock.ts'
import type { Env } from '../platform/env.ts'
import type { Logger } from '../platform/logger.ts'
import { localLimiters, sharedLimiters } from '../platform/rate-limiter.ts'
import { createSharedCounters } from '../platform/shared-counters.ts'

/**
 * Every limit and counter of the app from one place: shared by the replicas through `db`
 * (docs/decisions/019), or this process's own when `shared` is false (tests without a database).
 */
export function createLimits(deps: {
  db: Sql
  clock: Clock
  logger: Logger
  env: Pick<
    Env,
    | 'SHARED_LIMIT_TIMEOUT_MS'
    | 'CANARY_ERROR_RATE_THRESHOLD'
    | 'CANARY_MIN_CLIENTS'
    | 'CANARY_WINDOW_SECONDS'
    | 'SIGN_IN_FREE_FAILURES_PER_ACCOUNT'
    | 'SIGN_IN_BACKOFF_BASE_SECONDS'
    | 'SIGN_IN_BACKOFF_MAX_SECONDS'
    | 'SIGN_IN_BACKOFF_MEMORY_SECONDS'
    | 'SIGN_IN_MAX_FAILURES_PER_CLIENT'
    | 'SIGN_IN_FAILURE_WINDOW_SECONDS'
  >
  shared: false | { namespace?: string } | undefined
}) {
  const { env, clock } = deps
  const counters =
    deps.shared === false
      ? null
      : createSharedCounters({
          sql: deps.db,
          clock,
          logger: deps.logger,
          timeoutMs: env.SHARED_LIMIT_TIMEOUT_MS,
          canaryWindowMs: env.CANARY_WINDOW_SECONDS * 1000,
          ...(deps.shared?.namespace === undefined ? {} : { namespace: deps.shared.namespace }),
        })
  const canarySettings = {
    clock,
    windowMs: env.CANARY_WINDOW_SECONDS * 1000,
    threshold: env.CANARY_ERROR_RATE_THRESHOLD,
    minClients: env.CANARY_MIN_CLIENTS,
  }
  const throttleSettings = {
    clock,
    account: {
      freeFailures: env.SIGN_IN_FREE_FAILURES_PER_ACCOUNT,
      baseDelayMs: env.SIGN_IN_BACKOFF_BASE_SECONDS * 1000,
      maxDelayMs: env.SIGN_IN_BACKOFF_MAX_SECONDS * 1000,
      memoryMs: env.SIGN_IN_BACKOFF_MEMORY_SECONDS * 1000,
    },
    client: {
      maxFailures: env.SIGN_IN_MAX_FAILURES_PER_CLIENT,
      windowMs: env.SIGN_IN_FAILURE_WINDOW_SECONDS * 1000,
    },
  }
  if (counters === null) {
    return {
      counters: undefined,
      limiters: localLimiters(clock),
      canaryMonitor: createCanaryMonitor(canarySettings),
      throttle: createSignInThrottle(throttleSettings),
    }
  }
  return {
    counters,
    limiters: sharedLimiters(counters, clock),
    canaryMonitor: createSharedCanaryMonitor({ ...canarySettings, counters }),
    throttle: createSharedSignInThrottle({ ...throttleSettings, counters }),
  }
}
