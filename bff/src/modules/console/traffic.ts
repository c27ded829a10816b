/**
 * Each version's live figures over the canary window, from every replica: distinct clients served
 * and with errors come from the canary monitor's shared counts (`canary_clients`); error reports
 * per minute (the console's sparklines) from `remote_error_minutes`, one upsert per report.
 */
import type { VersionTraffic } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'

export interface TrafficStore {
  /** Counts one error report for `remote@version` in the current minute. */
  recordError(remote: string, version: string): Promise<void>
  /** The figures of these versions of `remote` over the window, in the order given. */
  figures(remote: string, versions: readonly string[]): Promise<VersionTraffic[]>
}

const minuteMs = 60_000

const recordStatement = `insert into public.remote_error_minutes as m (remote, version, minute, reports)
  values ($1, $2, $3, 1)
  on conflict (remote, version, minute) do update set reports = m.reports + 1`

const minutesStatement = `select version, minute::float8 as minute, reports from public.remote_error_minutes
  where remote = $1 and version in (select jsonb_array_elements_text($2::jsonb)) and minute >= $3`

// Bounded, as the shared counters' sweeps are; only this namespace's rows.
const sweepStatement = `delete from public.remote_error_minutes where (remote, version, minute) in (
  select remote, version, minute from public.remote_error_minutes
  where minute < $1 and starts_with(remote, $2) limit 1000)`

export function createTrafficStore(deps: {
  sql: Sql
  clock: Clock
  logger: Logger
  windowMs: number
  /** The canary monitor's shared counts; without them (tests without a database) served is 0. */
  counters?: SharedCounters | undefined
  /** Prefixed to every remote, as the shared counters do (tests keep apps apart). */
  namespace?: string
  sweepEveryMs?: number
}): TrafficStore {
  const { sql, clock, windowMs } = deps
  const namespace = deps.namespace ?? ''
  const sweepEveryMs = deps.sweepEveryMs ?? 60_000
  const buckets = Math.max(1, Math.ceil(windowMs / minuteMs))
  let lastSweepAt = clock.now()

  const sweepIfDue = (now: number) => {
    if (now - lastSweepAt < sweepEveryMs) return
    lastSweepAt = now
    sql
      .query(sweepStatement, [Math.floor(now / minuteMs) - buckets, namespace])
      .catch((error: unknown) => deps.logger.warn('could not sweep error minutes', { error }))
  }

  return {
    async recordError(remote, version) {
      const now = clock.now()
      await sql.query(recordStatement, [namespace + remote, version, Math.floor(now / minuteMs)])
      sweepIfDue(now)
    },
    async figures(remote, versions) {
      if (versions.length === 0) return []
      const now = clock.now()
      const current = Math.floor(now / minuteMs)
      const first = current - buckets + 1
      const [minutes, counts] = await Promise.all([
        sql.query<{ version: string; minute: number; reports: number }>(minutesStatement, [
          namespace + remote,
          JSON.stringify(versions),
          first,
        ]),
        Promise.all(
          versions.map(
            (version) =>
              deps.counters?.canaryCounts(remote, version, now, windowMs) ??
              Promise.resolve({ servedClients: 0, errorClients: 0 }),
          ),
        ),
      ])
      return versions.map((version, index) => {
        const errorsPerMinute = Array.from({ length: buckets }, () => 0)
        for (const row of minutes.rows) {
          const bucket = Number(row.minute) - first
          if (row.version === version && bucket >= 0 && bucket < buckets)
            errorsPerMinute[bucket] = Number(row.reports)
        }
        const { servedClients, errorClients } = counts[index] ?? {
          servedClients: 0,
          errorClients: 0,
        }
        return {
          version,
          servedClients,
          errorClients,
          errorRate: servedClients === 0 ? 0 : errorClients / servedClients,
          errorsPerMinute,
        }
      })
    },
  }
}
