/**
 * The console's health page: which BFF replicas are up (each writes a heartbeat to PostgreSQL
 * every few seconds, and marks itself stopped when it drains) and whether this replica reaches
 * its dependencies, each probe bounded by a short timeout and a failure said in a sentence.
 */
import type { HealthCheck, ReplicaHealth } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import type { Logger } from '../../platform/logger.ts'

/** A replica whose last heartbeat is older than this is down. */
export const REPLICA_UP_MS = 30_000

export interface ReplicaHeartbeat {
  /** This process's id in `bff_replicas`. */
  id: string
  /** Writes one heartbeat now. */
  beat(): Promise<void>
  /** Marks this replica stopped (draining). */
  stop(): Promise<void>
  /** Every replica seen within the last hour, this one marked `self`. */
  replicas(): Promise<ReplicaHealth[]>
}

const beatStatement = `insert into public.bff_replicas (id, started_at, last_seen_at, version, stopped_at)
  values ($1, $2, $3, $4, null)
  on conflict (id) do update set last_seen_at = excluded.last_seen_at, stopped_at = null`

export function createReplicaHeartbeat(deps: {
  sql: Sql
  clock: Clock
  version: string
  id?: string
}): ReplicaHeartbeat {
  const { sql, clock } = deps
  const id = deps.id ?? crypto.randomUUID()
  const startedAt = new Date(clock.now())
  return {
    id,
    async beat() {
      await sql.query(beatStatement, [id, startedAt, new Date(clock.now()), deps.version])
    },
    async stop() {
      await sql.query('update public.bff_replicas set stopped_at = $2 where id = $1', [
        id,
        new Date(clock.now()),
      ])
    },
    async replicas() {
      const now = clock.now()
      const { rows } = await sql.query<{
        id: string
        started_at: Date
        last_seen_at: Date
        version: string
        stopped_at: Date | null
      }>(
        `select id, started_at, last_seen_at, version, stopped_at from public.bff_replicas
          where last_seen_at > $1 order by started_at, id`,
        [new Date(now - 3_600_000)],
      )
      return rows.map((row) => {
        const seen = new Date(row.last_seen_at)
        return {
          id: row.id,
          up: row.stopped_at === null && now - seen.getTime() <= REPLICA_UP_MS,
          startedAt: new Date(row.started_at).toISOString(),
          lastSeenAt: seen.toISOString(),
          version: row.version,
          self: row.id === id,
        }
      })
    },
  }
}

/**
 * Beats every `everyMs` until `signal` aborts (the Node entry's drain), then marks the replica
 * stopped. A failed beat is a warning: the next one may pass.
 */
export function runHeartbeat(
  heartbeat: ReplicaHeartbeat,
  options: { everyMs: number; signal: AbortSignal; logger: Logger },
): void {
  const beat = () =>
    heartbeat.beat().catch((error: unknown) => {
      options.logger.warn('could not write the replica heartbeat', { error })
    })
  void beat()
  const timer = setInterval(beat, options.everyMs)
  options.signal.addEventListener(
    'abort',
    () => {
      clearInterval(timer)
      heartbeat.stop().catch((error: unknown) => {
        options.logger.warn('could not mark the replica stopped', { error })
      })
    },
    { once: true },
  )
}

export type ProbeName = HealthCheck['name']

/** One dependency check: resolves when reachable, throws an Error whose message is the sentence. */
export type Probe = (signal: AbortSignal) => Promise<void>

/** Runs each probe with a timeout; the checks come back in the order given. */
export async function runProbes(
  probes: ReadonlyArray<{ name: ProbeName; probe: Probe }>,
  options: { timeoutMs: number; now?: () => number },
): Promise<HealthCheck[]> {
  const now = options.now ?? (() => performance.now())
  return Promise.all(
    probes.map(async ({ name, probe }): Promise<HealthCheck> => {
      const started = now()
      const controller = new AbortController()
      let timer: ReturnType<typeof setTimeout> | undefined
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          controller.abort()
          reject(new Error(`No answer within ${options.timeoutMs} ms.`))
        }, options.timeoutMs)
      })
      try {
        await Promise.race([probe(controller.signal), timeout])
        return { name, ok: true, latencyMs: Math.round(now() - started), problem: null }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        return { name, ok: false, latencyMs: null, problem: message }
      } finally {
        clearTimeout(timer)
      }
    }),
  )
}

/**
 * An HTTP probe: reachable when the service answers anything but a 5xx (a 401 says it is there
 * and refused our key, which the sentence says too).
 */
export function httpProbe(
  fetchImpl: typeof fetch,
  what: string,
  url: string,
  headers: Record<string, string> = {},
): Probe {
  return async (signal) => {
    let response: Response
    try {
      response = await fetchImpl(url, { headers, signal })
    } catch (error) {
      if (signal.aborted) throw new Error(`${what} did not answer in time.`, { cause: error })
      const reason = error instanceof Error ? error.message : String(error)
      throw new Error(`${what} could not be reached at ${new URL(url).origin} (${reason}).`, {
        cause: error,
      })
    }
    await response.body?.cancel()
    if (response.status >= 500) {
      throw new Error(`${what} answered ${response.status} at ${new URL(url).origin}.`)
    }
    if (response.status === 401 || response.status === 403) {
      throw new Error(
        `${what} answered ${response.status}: it is reachable, but refused this BFF's key.`,
      )
    }
  }
}

/** The probes of the BFF's dependencies, from its settings. */
export function dependencyProbes(deps: {
  sql: Sql
  fetch: typeof fetch
  env: {
    SUPABASE_URL: string
    SUPABASE_ANON_KEY: string
    STRIPE_API_URL: string
    STRIPE_SECRET_KEY: string
    OPENAI_BASE_URL: string
    OPENAI_API_KEY: string
  }
}): Array<{ name: ProbeName; probe: Probe }> {
  const { env } = deps
  return [
    {
      name: 'database',
      probe: async () => {
        try {
          await deps.sql.query('select 1')
        } catch (error) {
          throw new Error(
            `The database did not answer a query (${error instanceof Error ? error.message : String(error)}).`,
            { cause: error },
          )
        }
      },
    },
    {
      name: 'supabase',
      probe: httpProbe(deps.fetch, 'Supabase Auth', `${env.SUPABASE_URL}/auth/v1/health`, {
        apikey: env.SUPABASE_ANON_KEY,
      }),
    },
    {
      name: 'stripe',
      probe: httpProbe(deps.fetch, 'Stripe', `${env.STRIPE_API_URL}/v1/balance`, {
        authorization: `Bearer ${env.STRIPE_SECRET_KEY}`,
      }),
    },
    {
      name: 'model',
      probe: httpProbe(
        deps.fetch,
        'The model endpoint',
        `${env.OPENAI_BASE_URL.replace(/\/+$/, '')}/models`,
        { authorization: `Bearer ${env.OPENAI_API_KEY}` },
      ),
    },
  ]
}
