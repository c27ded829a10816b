import type { Sql } from '@tessera/db/sql'
import type { Clock } from './clock.ts'
import type { Logger } from './logger.ts'

/** One hit to count: the key, how long its count lives, and whether each hit extends that. */
export interface CounterHit {
  key: string
  /** A fixed window's length, or (sliding) how long the count is remembered after a hit (ms). */
  ttlMs: number
  sliding?: boolean
}

/** A key's count as the database holds it; times are the app clock's epoch milliseconds. */
export interface CounterState {
  key: string
  hits: number
  windowStartedAt: number
  lastHitAt: number
  expiresAt: number
}

export interface SharedCounters {
  /** Counts one hit for each key of `scope` in one statement; answers every key's new count. */
  hit(scope: string, hits: readonly CounterHit[], now: number): Promise<CounterState[]>
  /** The live counts of these keys (one statement); keys without one are left out. */
  read(scope: string, keys: readonly string[], now: number): Promise<CounterState[]>
  /** Forgets these keys' counts. */
  forget(scope: string, keys: readonly string[]): Promise<void>
  /** Counts one client served a canary version. */
  canaryServed(remote: string, version: string, subject: string, now: number): Promise<void>
  /** Counts one client that reported an error for a canary version. */
  canaryFailed(remote: string, version: string, subject: string, now: number): Promise<void>
  /** Clients served the version within the window, and those of them that reported an error. */
  canaryCounts(
    remote: string,
    version: string,
    now: number,
    windowMs: number,
  ): Promise<{ servedClients: number; errorClients: number }>
  /**
   * Runs `work` on the database, or `fallback` (the in-process count) when the database fails or
   * takes longer than the timeout, with a warning at most once a minute per `what`.
   */
  attempt<T>(what: string, work: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T>
}

export interface SharedCountersOptions {
  sql: Sql
  clock: Clock
  logger: Logger
  /** How long a statement may take before the process counts on its own instead (ms). */
  timeoutMs: number
  /** Prefixed to every scope (tests give each app of a file its own counts). */
  namespace?: string
  /** How often expired rows are deleted, piggy-backed on a hit (ms). */
  sweepEveryMs?: number
  /** How long canary rows are kept after their latest sighting (ms): the canary window. */
  canaryWindowMs?: number
}

class CounterTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`the shared counters did not answer within ${timeoutMs} ms`)
    this.name = 'CounterTimeout'
  }
}

type CounterRow = {
  key: string
  hits: number
  window_started_at: number
  last_hit_at: number
  expires_at: number
}

const counterColumns = `key, hits, window_started_at::float8 as window_started_at,
  last_hit_at::float8 as last_hit_at, expires_at::float8 as expires_at`

// A hit to a window that has expired starts a new one; a sliding count's expiry follows its hits.
const hitStatement = `insert into public.limit_counters as c
    (scope, key, hits, window_started_at, last_hit_at, expires_at, sliding)
  select $1, h.key, 1, $2::bigint, $2::bigint, $2::bigint + h.ttl_ms, h.sliding
  from jsonb_to_recordset($3::jsonb) as h(key text, ttl_ms bigint, sliding boolean)
  on conflict (scope, key) do update set
    hits = case when c.expires_at <= excluded.last_hit_at then 1 else c.hits + 1 end,
    window_started_at = case when c.expires_at <= excluded.last_hit_at
      then excluded.window_started_at else c.window_started_at end,
    last_hit_at = excluded.last_hit_at,
    expires_at = case when c.expires_at <= excluded.last_hit_at or excluded.sliding
      then excluded.expires_at else c.expires_at end,
    sliding = excluded.sliding
  returning ${counterColumns}`

const readStatement = `select ${counterColumns} from public.limit_counters
  where scope = $1 and key in (select jsonb_array_elements_text($2::jsonb)) and expires_at > $3`

const forgetStatement = `delete from public.limit_counters
  where scope = $1 and key in (select jsonb_array_elements_text($2::jsonb))`

// Bounded, so a sweep after a flood of one-off clients is many short statements, not one long one.
// Only this namespace's rows: another's may run on another clock (tests move theirs by hand).
const sweepStatement = `delete from public.limit_counters where (scope, key) in (
  select scope, key from public.limit_counters
  where expires_at <= $1 and starts_with(scope, $2) limit 1000)`

const canaryServedStatement = `insert into public.canary_clients as c
    (remote, version, subject, served_at) values ($1, $2, $3, $4)
  on conflict (remote, version, subject) do update set served_at = excluded.served_at`

const canaryFailedStatement = `insert into public.canary_clients as c
    (remote, version, subject, failed_at) values ($1, $2, $3, $4)
  on conflict (remote, version, subject) do update set failed_at = excluded.failed_at`

const canaryCountsStatement = `select
    count(*) filter (where served_at > $3)::int as served_clients,
    count(*) filter (where served_at > $3 and failed_at > $3)::int as error_clients
  from public.canary_clients where remote = $1 and version = $2`

const canarySweepStatement = `delete from public.canary_clients
  where (remote, version, subject) in (
    select remote, version, subject from public.canary_clients
    where greatest(coalesce(served_at, 0), coalesce(failed_at, 0)) <= $1
      and starts_with(remote, $2) limit 1000)`

const toState = (row: CounterRow): CounterState => ({
  key: row.key,
  hits: Number(row.hits),
  windowStartedAt: Number(row.window_started_at),
  lastHitAt: Number(row.last_hit_at),
  expiresAt: Number(row.expires_at),
})

/**
 * Counts every BFF replica shares, in PostgreSQL (`limit_counters` and `canary_clients`, both
 * unlogged): one statement per check, with the app's clock as the time so that replicas agree
 * with each other and tests can move time. Expired rows are deleted in bounded batches, at most
 * once per `sweepEveryMs`, after a hit.
 */
export function createSharedCounters(options: SharedCountersOptions): SharedCounters {
  const { sql, clock, logger, timeoutMs } = options
  const namespace = options.namespace ?? ''
  const sweepEveryMs = options.sweepEveryMs ?? 60_000
  const canaryWindowMs = options.canaryWindowMs ?? 600_000
  let lastSweepAt = clock.now()
  let sweeping = false
  const warnings = new Map<string, { at: number; suppressed: number }>()

  const warn = (what: string, error: unknown): void => {
    const now = clock.now()
    const last = warnings.get(what)
    if (last !== undefined && now - last.at < 60_000) {
      last.suppressed += 1
      return
    }
    warnings.set(what, { at: now, suppressed: 0 })
    logger.warn('shared limit unavailable: counting in this process', {
      what,
      error,
      suppressed: last?.suppressed ?? 0,
    })
  }

  const withTimeout = async <T>(work: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new CounterTimeout(timeoutMs)), timeoutMs)
    })
    try {
      return await Promise.race([work, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  const sweep = async (now: number): Promise<void> => {
    sweeping = true
    try {
      const deleted = await sql.query(sweepStatement, [now, namespace])
      const canaries = await sql.query(canarySweepStatement, [now - canaryWindowMs, namespace])
      if (deleted.rowCount + canaries.rowCount > 0)
        logger.debug('expired shared counts deleted', {
          counters: deleted.rowCount,
          canaryClients: canaries.rowCount,
        })
    } catch (error) {
      logger.warn('could not delete expired shared counts', { error })
    } finally {
      sweeping = false
    }
  }

  const sweepIfDue = (now: number): void => {
    if (sweeping || now - lastSweepAt < sweepEveryMs) return
    lastSweepAt = now
    void sweep(now)
  }

  return {
    async hit(scope, hits, now) {
      // One row per key (an upsert may touch a row once), in one order (no deadlocks between
      // replicas counting the same keys).
      const byKey = new Map(hits.map((hit) => [hit.key, hit]))
      const rows = [...byKey.values()]
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
        .map((hit) => ({ key: hit.key, ttl_ms: hit.ttlMs, sliding: hit.sliding ?? false }))
      const result = await sql.query<CounterRow>(hitStatement, [
        namespace + scope,
        now,
        JSON.stringify(rows),
      ])
      sweepIfDue(now)
      return result.rows.map(toState)
    },
    async read(scope, keys, now) {
      const result = await sql.query<CounterRow>(readStatement, [
        namespace + scope,
        JSON.stringify(keys),
        now,
      ])
      return result.rows.map(toState)
    },
    async forget(scope, keys) {
      await sql.query(forgetStatement, [namespace + scope, JSON.stringify(keys)])
    },
    async canaryServed(remote, version, subject, now) {
      await sql.query(canaryServedStatement, [namespace + remote, version, subject, now])
      sweepIfDue(now)
    },
    async canaryFailed(remote, version, subject, now) {
      await sql.query(canaryFailedStatement, [namespace + remote, version, subject, now])
    },
    async canaryCounts(remote, version, now, windowMs) {
      const result = await sql.query<{ served_clients: number; error_clients: number }>(
        canaryCountsStatement,
        [namespace + remote, version, now - windowMs],
      )
      const row = result.rows[0]
      return {
        servedClients: Number(row?.served_clients ?? 0),
        errorClients: Number(row?.error_clients ?? 0),
      }
    },
    async attempt(what, work, fallback) {
      let running: Promise<unknown> | undefined
      try {
        const started = work()
        running = started
        return await withTimeout(started)
      } catch (error) {
        // A statement that outlived its timeout may still fail later: nobody waits for it.
        running?.catch(() => undefined)
        warn(what, error)
        return fallback()
      }
    },
  }
}
