/**
 * Part 2 of the cluster bench (cluster.ts), the fan-out: 600 event streams (`GET /api/events`, one
 * signed-in user) spread by HAProxy over the 3 replicas and held by 3 processes of their own
 * (cluster-streams.ts); then, after 50 not counted, 3 rounds of 200 profile updates sent to
 * replicas chosen at random, each publishing a live event to every stream of the user.
 */
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { RunningCluster } from '../../scripts/lib/cluster.ts'
import { openDatabase } from '@tessera/db/open-database'
import type { FromStreams } from './cluster-streams.ts'
import { median, percentile, repoRoot, report, sleep, spawnBench } from './lib.ts'

const streams = Number(process.env.BENCH_STREAMS ?? 600)
const events = Number(process.env.BENCH_EVENTS ?? 200)
/** Time between two published events (ms): 25 a second. */
const publishEveryMs = Number(process.env.BENCH_PUBLISH_EVERY_MS ?? 40)
/** How long after the last publish stragglers may still arrive. */
const settleMs = 5000
/** Rounds of the fan-out over the same streams (each `events` events), for a median in one run. */
const fanOutRounds = Number(process.env.BENCH_FANOUT_ROUNDS ?? 3)
/** Events of the warm-up before the rounds (not counted). */
const warmUpEvents = 50
/** Processes the event streams are spread over (cluster-streams.ts), so the client is not the pace. */
const streamProcesses = Number(process.env.BENCH_STREAM_PROCESSES ?? 3)

/** A process holding a share of the event streams (cluster-streams.ts). */
interface StreamClients {
  child: ChildProcess
  count: number
  next<T>(pick: (message: FromStreams) => T | undefined): Promise<T>
}

function startStreamClients(url: string, cookie: string, count: number): StreamClients {
  const child = spawnBench(
    'bench/src/cluster-streams.ts',
    [url, cookie, String(count)],
    ['ignore', 'inherit', 'inherit', 'ipc'],
  )
  const next = <T>(pick: (message: FromStreams) => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: FromStreams) => {
        if ('failed' in message) return reject(new Error(message.failed))
        const value = pick(message)
        if (value === undefined) return
        child.off('message', onMessage)
        child.off('exit', onExit)
        resolve(value)
      }
      const onExit = (code: number | null) =>
        reject(new Error(`a stream client process exited (${code})`))
      child.on('message', onMessage)
      child.once('exit', onExit)
    })
  return { child, count, next }
}

/** CPU time (user + system) a process has used, in ms; null where /proc cannot tell (not Linux). */
function cpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null
  try {
    // Fields 14 and 15 after the command name (which may hold spaces, so split after its ')').
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks
  } catch {
    return null
  }
}
/** The kernel's clock ticks per second (USER_HZ), 100 on every Linux this runs on. */
const clockTicks = 100

/** One round of the fan-out: each stream's share of deliveries, and the latencies. */
interface FanOutRound {
  lost: number
  duplicates: number
  delivered: number
  publishFailures: string[]
  /** Per event: from its outbox row's insert (its commit follows) to the last stream (ms). */
  toLastStream: number[]
  /** Per delivery: from the row's insert to the stream's arrival (ms). */
  perDelivery: number[]
  /** CPU time the replicas used in the round, per 1,000 deliveries made (ms). */
  bffCpuPerThousand: number | null
  /** The same for HAProxy, and for the stream processes (the bench's clients). */
  haproxyCpuPerThousand: number | null
  clientCpuPerThousand: number | null
}

/**
 * Fan-out: the streams first, spread by round robin over the replicas by HAProxy and held by
 * `BENCH_STREAM_PROCESSES` processes of their own; then `BENCH_FANOUT_ROUNDS` rounds of `events`
 * profile updates, each sent to a replica chosen at random. Latency counts from the outbox row's
 * insert (`created_at`, PostgreSQL's clock, the same machine; the transaction commits right after,
 * publishing being its last statement), read back from the table after each round.
 */
export async function fanOut(
  cluster: RunningCluster,
  lbUrl: string,
  cookie: string,
  dataDir: string,
): Promise<void> {
  const processes = Math.max(1, Math.min(streams, streamProcesses))
  const clients = Array.from({ length: processes }, (_, index) =>
    startStreamClients(
      `${lbUrl}/api/events`,
      cookie,
      Math.floor(streams / processes) + (index < streams % processes ? 1 : 0),
    ),
  )
  const db = await openDatabase({ url: cluster.databaseUrl, maxConnections: 1 })
  const haproxyPid = (
    JSON.parse(readFileSync(path.join(repoRoot, dataDir, 'cluster.json'), 'utf8')) as {
      haproxyPid?: number
    }
  ).haproxyPid
  try {
    await Promise.all(
      clients.map((client) => client.next((message) => ('opened' in message ? true : undefined))),
    )
    const spread = (await cluster.backends()).map((state) => `${state.name} ${state.current}`)
    const rounds: FanOutRound[] = []
    const utilisation: number[] = []
    // Round -1 warms the path up (the replicas' JIT, the first reads) and is not counted.
    for (let round = -1; round < fanOutRounds; round += 1) {
      for (const client of clients) client.child.send('mark')
      const cpuBefore = cluster.replicas.map((replica) => cpuMs(replica.pid))
      const otherCpuBefore = [
        cpuMs(haproxyPid),
        ...clients.map((client) => cpuMs(client.child.pid)),
      ]
      const count = round < 0 ? warmUpEvents : events
      const first = (round + 1) * events
      const publishFailures: string[] = []
      const publishes: Promise<void>[] = []
      for (let index = first; index < first + count; index += 1) {
        const replica = cluster.replicas[Math.floor(Math.random() * cluster.replicas.length)]!
        publishes.push(
          fetch(`http://127.0.0.1:${replica.port}/api/me/profile`, {
            method: 'PATCH',
            headers: {
              cookie,
              origin: cluster.appUrl,
              'x-tessera-csrf': '1',
              'content-type': 'application/json',
            },
            body: JSON.stringify({ displayName: `Fan out ${index}` }),
          }).then(
            async (response) => {
              if (!response.ok) publishFailures.push(`${response.status} ${await response.text()}`)
            },
            (error: unknown) => {
              publishFailures.push(String(error))
            },
          ),
        )
        await sleep(publishEveryMs)
      }
      await Promise.all(publishes)
      // Stragglers: until every stream has every event of the round, or the settle time passed.
      const settleBy = Date.now() + settleMs
      let reports: [number, number][][][] = []
      for (;;) {
        const answers = await Promise.all(
          clients.map((client) => {
            const answer = client.next((message) =>
              'report' in message ? message.report : undefined,
            )
            client.child.send('report')
            return answer
          }),
        )
        reports = answers.map((answer) => answer.arrivals)
        if (round >= 0 && utilisation.length === round)
          utilisation.push(Math.max(...answers.map((a) => a.utilisation)))
        const complete = reports.every((streamsOf) =>
          streamsOf.every(
            (arrivals) => arrivals.filter(([marker]) => marker >= first).length >= count,
          ),
        )
        if (complete || Date.now() > settleBy) break
        await sleep(250)
      }
      if (round < 0) continue
      const cpuAfter = cluster.replicas.map((replica) => cpuMs(replica.pid))
      const otherCpu = [cpuMs(haproxyPid), ...clients.map((client) => cpuMs(client.child.pid))].map(
        (value, index) =>
          value === null || otherCpuBefore[index] === null ? null : value - otherCpuBefore[index]!,
      )
      const cpuUsed = cpuAfter.every((value, index) => value !== null && cpuBefore[index] !== null)
        ? cpuAfter.reduce<number>((sum, value, index) => sum + value! - cpuBefore[index]!, 0)
        : null
      const inserted = new Map<number, number>()
      const { rows } = await db.query<{ marker: string; ms: number }>(
        `select event -> 'data' -> 'user' ->> 'displayName' as marker,
                (extract(epoch from created_at) * 1000)::float8 as ms
           from public.live_events
          where event -> 'data' -> 'user' ->> 'displayName' like 'Fan out %'`,
      )
      for (const row of rows) {
        const index = Number(row.marker.slice('Fan out '.length))
        inserted.set(index, Math.min(inserted.get(index) ?? Infinity, row.ms))
      }
      const result: FanOutRound = {
        lost: 0,
        duplicates: 0,
        delivered: 0,
        publishFailures,
        toLastStream: [],
        perDelivery: [],
        bffCpuPerThousand: null,
        haproxyCpuPerThousand: null,
        clientCpuPerThousand: null,
      }
      const last = new Map<number, number>()
      for (const arrivals of reports.flat()) {
        const firstCopy = new Map<number, number>()
        for (const [marker, at] of arrivals) {
          if (marker < first) continue
          if (firstCopy.has(marker)) result.duplicates += 1
          else firstCopy.set(marker, at)
        }
        for (let index = first; index < first + events; index += 1) {
          const at = firstCopy.get(index)
          const insertedAt = inserted.get(index)
          if (at === undefined) {
            result.lost += 1
            continue
          }
          result.delivered += 1
          if (insertedAt === undefined) continue
          result.perDelivery.push(at - insertedAt)
          last.set(index, Math.max(last.get(index) ?? -Infinity, at - insertedAt))
        }
      }
      result.toLastStream = [...last.values()]
      if (cpuUsed !== null && result.delivered > 0)
        result.bffCpuPerThousand = (1000 * cpuUsed) / result.delivered
      const [haproxyCpu, ...clientCpu] = otherCpu
      if (haproxyCpu !== null && haproxyCpu !== undefined && result.delivered > 0)
        result.haproxyCpuPerThousand = (1000 * haproxyCpu) / result.delivered
      if (clientCpu.every((value) => value !== null) && result.delivered > 0)
        result.clientCpuPerThousand =
          (1000 * clientCpu.reduce<number>((sum, value) => sum + value!, 0)) / result.delivered
      rounds.push(result)
    }

    const expected = events * streams
    const ms = (values: number[], p: number) =>
      values.length === 0 ? '—' : `${percentile(values, p).toFixed(1)}`
    const medianOf = (pick: (round: FanOutRound) => number) => median(rounds.map(pick)).toFixed(1)
    const p = (values: number[], q: number) => (values.length === 0 ? NaN : percentile(values, q))
    report(
      'cluster-fan-out',
      ['fan-out measure', ...rounds.map((_, index) => `round ${index + 1}`), 'median', 'goal'],
      [
        [
          'events published (failed)',
          ...rounds.map((round) => `${events} (${round.publishFailures.length})`),
          '',
          `${events} (0)`,
        ],
        [
          'deliveries expected / made',
          ...rounds.map((round) => `${expected} / ${round.delivered}`),
          '',
          '',
        ],
        [
          'lost / duplicates',
          ...rounds.map((round) => `${round.lost} / ${round.duplicates}`),
          '',
          '0 / 0',
        ],
        [
          'commit → last stream, p50 / p99 (ms)',
          ...rounds.map((round) => `${ms(round.toLastStream, 50)} / ${ms(round.toLastStream, 99)}`),
          `${medianOf((round) => p(round.toLastStream, 50))} / ${medianOf((round) => p(round.toLastStream, 99))}`,
          'p99 ≤ 100',
        ],
        [
          'commit → each delivery, p50 / p99 (ms)',
          ...rounds.map((round) => `${ms(round.perDelivery, 50)} / ${ms(round.perDelivery, 99)}`),
          `${medianOf((round) => p(round.perDelivery, 50))} / ${medianOf((round) => p(round.perDelivery, 99))}`,
          '',
        ],
        [
          'BFF CPU per 1,000 deliveries, publishing included (3 replicas, ms)',
          ...rounds.map((round) => round.bffCpuPerThousand?.toFixed(1) ?? '—'),
          medianOf((round) => round.bffCpuPerThousand ?? NaN),
          '',
        ],
        [
          'HAProxy / stream processes CPU per 1,000 deliveries (ms)',
          ...rounds.map(
            (round) =>
              `${round.haproxyCpuPerThousand?.toFixed(1) ?? '—'} / ${round.clientCpuPerThousand?.toFixed(1) ?? '—'}`,
          ),
          `${medianOf((round) => round.haproxyCpuPerThousand ?? NaN)} / ${medianOf((round) => round.clientCpuPerThousand ?? NaN)}`,
          '',
        ],
        [
          `stream processes (${processes}): busiest event loop`,
          ...utilisation.map((value) => `${Math.round(100 * value)} %`),
          '',
          'well below 100 %',
        ],
      ],
      {
        streams,
        events,
        processes,
        spread,
        expected,
        utilisation,
        rounds: rounds.map((round) => ({
          ...round,
          toLastStream: {
            p50: p(round.toLastStream, 50),
            p99: p(round.toLastStream, 99),
            max: Math.max(...round.toLastStream),
          },
          perDelivery: {
            p50: p(round.perDelivery, 50),
            p99: p(round.perDelivery, 99),
            min: Math.min(...round.perDelivery),
          },
        })),
      },
    )
    console.log(`  event streams per replica: ${spread.join(', ')}`)
    const lost = rounds.reduce((sum, round) => sum + round.lost, 0)
    if (lost > 0)
      console.log(
        `  ${((100 * lost) / (expected * rounds.length)).toFixed(1)} % of deliveries lost: an event published on one replica ` +
          `reached only some streams; the outbox (issue 15, item 1) is what carries it to the others.`,
      )
  } finally {
    for (const client of clients) client.child.disconnect()
    await db.close()
  }
}
