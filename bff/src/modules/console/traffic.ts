/**
 * Each version's live figures over the canary window, from every replica: distinct clients served
 * and with errors come from the canary monitor's shared counts (`canary_clients`); error reports
 * per minute (the console's sparklines) from `remote_error_minutes`, one upsert per report; load
 * timings per minute from `remote_load_minutes`, one upsert per page's report.
 */
import type { RemoteLoadTiming, VersionTraffic } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'
import { addLoad, addSums, emptySums, figuresOf, type LoadSums } from './load-figures.ts'

export interface TrafficStore {
  /** Counts one error report for `remote@version` in the current minute. */
  recordError(remote: string, version: string): Promise<void>
  /** Counts one page's remote loads in the current minute. */
  recordLoads(loads: readonly RemoteLoadTiming[]): Promise<void>
  /** The figures of these versions of `remote` over the window, in the order given. */
  figures(remote: string, versions: readonly string[]): Promise<VersionTraffic[]>
}

const minuteMs = 60_000

const recordStatement = `insert into public.remote_error_minutes as m (remote, version, minute, reports)
  values ($1, $2, $3, 1)
  on conflict (remote, version, minute) do update set reports = m.reports + 1`

const minutesStatement = `select version, minute::float8 as minute, reports from public.remote_error_minutes
  where remote = $1 and version in (select jsonb_array_elements_text($2::jsonb)) and minute >= $3`

// One row per remote and version of the report; a minute's buckets add up element by element.
const recordLoadsStatement = `insert into public.remote_load_minutes as m
    (remote, version, minute, loads, preloaded, entry_ms, expose_ms, mount_ms, ready_buckets)
  select r.remote, r.version, $2, r.loads, r.preloaded, r.entry_ms, r.expose_ms, r.mount_ms,
    r.ready_buckets
  from jsonb_to_recordset($1::jsonb) as r(remote text, version text, loads integer,
    preloaded integer, entry_ms bigint, expose_ms bigint, mount_ms bigint, ready_buckets integer[])
  on conflict (remote, version, minute) do update set
    loads = m.loads + excluded.loads,
    preloaded = m.preloaded + excluded.preloaded,
    entry_ms = m.entry_ms + excluded.entry_ms,
    expose_ms = m.expose_ms + excluded.expose_ms,
    mount_ms = m.mount_ms + excluded.mount_ms,
    ready_buckets = array(
      select t.a + t.b from unnest(m.ready_buckets, excluded.ready_buckets) with ordinality as t(a, b, i)
      order by t.i)`

const loadMinutesStatement = `select version, loads, preloaded, entry_ms::float8 as entry_ms,
    expose_ms::float8 as expose_ms, mount_ms::float8 as mount_ms,
    to_jsonb(ready_buckets) as ready_buckets
  from public.remote_load_minutes
  where remote = $1 and version in (select jsonb_array_elements_text($2::jsonb)) and minute >= $3`

// Bounded, as the shared counters' sweeps are; only this namespace's rows.
const sweepStatements = ['remote_error_minutes', 'remote_load_minutes'].map(
  (table) => `delete from public.${table} where (remote, version, minute) in (
  select remote, version, minute from public.${table}
  where minute < $1 and starts_with(remote, $2) limit 1000)`,
)

interface LoadMinuteRow {
  version: string
  loads: number
  preloaded: number
  entry_ms: number
  expose_ms: number
  mount_ms: number
  ready_buckets: number[]
}

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
    for (const statement of sweepStatements)
      sql
        .query(statement, [Math.floor(now / minuteMs) - buckets, namespace])
        .catch((error: unknown) => deps.logger.warn('could not sweep traffic minutes', { error }))
  }

  return {
    async recordError(remote, version) {
      const now = clock.now()
      await sql.query(recordStatement, [namespace + remote, version, Math.floor(now / minuteMs)])
      sweepIfDue(now)
    },
    async recordLoads(loads) {
      const byVersion = new Map<string, { remote: string; version: string; sums: LoadSums }>()
      for (const load of loads) {
        const key = `${load.remote}@${load.version}`
        let entry = byVersion.get(key)
        if (entry === undefined) {
          entry = { remote: namespace + load.remote, version: load.version, sums: emptySums() }
          byVersion.set(key, entry)
        }
        addLoad(entry.sums, load)
      }
      const rows = [...byVersion.values()].map(({ remote, version, sums }) => ({
        remote,
        version,
        loads: sums.loads,
        preloaded: sums.preloaded,
        entry_ms: sums.entryMs,
        expose_ms: sums.exposeMs,
        mount_ms: sums.mountMs,
        ready_buckets: sums.readyBuckets,
      }))
      const now = clock.now()
      await sql.query(recordLoadsStatement, [JSON.stringify(rows), Math.floor(now / minuteMs)])
      sweepIfDue(now)
    },
    async figures(remote, versions) {
      if (versions.length === 0) return []
      const now = clock.now()
      const current = Math.floor(now / minuteMs)
      const first = current - buckets + 1
      const [minutes, loadMinutes, counts] = await Promise.all([
        sql.query<{ version: string; minute: number; reports: number }>(minutesStatement, [
          namespace + remote,
          JSON.stringify(versions),
          first,
        ]),
        sql.query<LoadMinuteRow>(loadMinutesStatement, [
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
        const loads = emptySums()
        for (const row of loadMinutes.rows) {
          if (row.version !== version) continue
          addSums(loads, {
            loads: Number(row.loads),
            preloaded: Number(row.preloaded),
            entryMs: Number(row.entry_ms),
            exposeMs: Number(row.expose_ms),
            mountMs: Number(row.mount_ms),
            readyBuckets: row.ready_buckets.map(Number),
          })
        }
        return {
          version,
          servedClients,
          errorClients,
          errorRate: servedClients === 0 ? 0 : errorClients / servedClients,
          errorsPerMinute,
          loads: figuresOf(loads),
        }
      })
    },
  }
}
