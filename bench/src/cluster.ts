/**
 * The cluster: 3 BFF replicas behind HAProxy on one PostgreSQL server (scripts/lib/cluster.ts),
 * on this machine's cores, loopback only.
 *
 * 1. Throughput: `GET /api/me` (signed in) with autocannon through HAProxy with 1, 2 and 3
 *    replicas in service (the others set to `maint` on HAProxy's admin socket), against one
 *    replica straight, without HAProxy, measured in the same run. Errors must be 0.
 * 2. Fan-out: 600 event streams (`GET /api/events`, one signed-in user) spread by HAProxy over the
 *    3 replicas; 200 profile updates sent to replicas chosen at random, each of which publishes a
 *    live event to every stream of the user. For each event: how many streams got it (lost),
 *    how many twice (duplicates), and the time from the event's creation on the server (its `at`,
 *    the same clock) to the last stream that got it. This measures whatever the BFF does: with an
 *    in-process hub an event reaches only the streams on the replica that published it.
 * 3. Failover: the throughput load again while one replica is stopped (SIGTERM: it drains) and
 *    then another is killed (SIGKILL), 2 s into each run. Every request must still succeed.
 */
import { request as httpRequest } from 'node:http'
import type { ClientRequest } from 'node:http'
import { rmSync } from 'node:fs'
import path from 'node:path'
import autocannon from 'autocannon'
import { startCluster } from '../../scripts/lib/cluster.ts'
import { haproxyCommand } from '../../scripts/lib/haproxy.ts'
import { signInBenchAccount } from './bench-account.ts'
import { percentile, repoRoot, report } from './lib.ts'

const connections = 50
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const streams = Number(process.env.BENCH_STREAMS ?? 600)
const events = Number(process.env.BENCH_EVENTS ?? 200)
/** Time between two published events (ms): 25 a second. */
const publishEveryMs = Number(process.env.BENCH_PUBLISH_EVERY_MS ?? 40)
/** How long after the last publish stragglers may still arrive. */
const settleMs = 5000
const dataDir = '.tessera/bench-cluster'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Load {
  rps: number
  p99: number
  errors: number
}

async function load(url: string, cookie: string, duration = seconds): Promise<Load> {
  const result = await autocannon({ url, connections, duration, headers: { cookie } })
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  }
}

/** One event stream: the markers of the events it received, in order. */
interface Stream {
  received: Map<string, number[]>
  request: ClientRequest
  opened: Promise<void>
}

function openStream(url: string, cookie: string): Stream {
  const received = new Map<string, number[]>()
  let resolveOpened!: () => void
  let rejectOpened!: (error: Error) => void
  const opened = new Promise<void>((resolve, reject) => {
    resolveOpened = resolve
    rejectOpened = reject
  })
  const request = httpRequest(url, {
    headers: { cookie, accept: 'text/event-stream' },
    agent: false,
  })
  request.on('response', (response) => {
    if (response.statusCode !== 200) {
      rejectOpened(new Error(`GET /api/events answered ${response.statusCode}`))
      response.resume()
      return
    }
    let buffer = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      const now = Date.now()
      buffer += chunk
      let end = buffer.indexOf('\n\n')
      while (end !== -1) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf('\n\n')
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n')
        if (data === '') continue
        const event = JSON.parse(data) as {
          type: string
          at: string
          data: { user?: { displayName?: string } }
        }
        if (event.type === 'connection.opened') resolveOpened()
        const marker = event.data.user?.displayName
        if (event.type !== 'auth' || marker === undefined || !marker.startsWith('Fan out '))
          continue
        const at = received.get(marker) ?? []
        at.push(now - Date.parse(event.at))
        received.set(marker, at)
      }
    })
  })
  request.on('error', (error) => rejectOpened(error))
  request.end()
  return { received, request, opened }
}

rmSync(path.join(repoRoot, dataDir), { recursive: true, force: true })
const cluster = await startCluster({
  replicas: 3,
  port: 0,
  cdnPort: 0,
  dataDir,
  // As deployed: every replica writes its access log (to a file here).
  logLevel: 'info',
  skipPublish: true,
  drainTimeoutSeconds: 5,
  replicaEnv: { EMAIL_SEND_RATE_LIMIT: '10000' },
})
try {
  const account = await signInBenchAccount(cluster)
  if (!account) throw new Error('the cluster offers no sign-up')
  const cookie = `${account.name}=${account.value}`
  const lbUrl = cluster.appUrl.replace('localhost', '127.0.0.1')
  const names = cluster.replicas.map((replica) => replica.name)
  const inService = async (count: number) => {
    for (const [index, name] of names.entries()) {
      await haproxyCommand(
        cluster.statsSocket,
        `set server bff/${name} state ${index < count ? 'ready' : 'maint'}`,
      )
    }
    await cluster.waitForBackends('UP', names.slice(0, count))
  }

  // Throughput. Warm-up on every replica (JIT, caches), discarded.
  await load(`${lbUrl}/api/me`, cookie, 3)
  const direct = await load(`http://127.0.0.1:${cluster.replicas[0]!.port}/api/me`, cookie)
  const behind: Load[] = []
  for (const count of [1, 2, 3]) {
    await inService(count)
    behind.push(await load(`${lbUrl}/api/me`, cookie))
  }
  const throughputRows = [
    [
      '1 replica, straight (reference)',
      String(direct.rps),
      `${direct.p99} ms`,
      String(direct.errors),
    ],
    ...behind.map((result, index) => [
      `${index + 1} behind HAProxy`,
      String(result.rps),
      `${result.p99} ms`,
      String(result.errors),
    ]),
    ['3 behind HAProxy ÷ 1 straight', (behind[2]!.rps / direct.rps).toFixed(2), '', ''],
  ]
  report(
    'cluster-throughput',
    [`GET /api/me, ${connections} connections, ${seconds} s`, 'requests/s', 'p99', 'errors'],
    throughputRows,
    { direct, behind, seconds, connections },
  )

  // Fan-out: the streams first, spread by round robin, opened 50 at a time.
  const opened: Stream[] = []
  for (let index = 0; index < streams; index += 50) {
    const batch = Array.from({ length: Math.min(50, streams - index) }, () =>
      openStream(`${lbUrl}/api/events`, cookie),
    )
    await Promise.all(batch.map((stream) => stream.opened))
    opened.push(...batch)
  }
  const spread = (await cluster.backends()).map((state) => `${state.name} ${state.current}`)
  const publishFailures: string[] = []
  const publishes: Promise<void>[] = []
  for (let index = 0; index < events; index += 1) {
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
  const everyOneDelivered = () => opened.every((stream) => stream.received.size === events)
  const settleBy = Date.now() + settleMs
  while (Date.now() < settleBy && !everyOneDelivered()) await sleep(100)
  for (const stream of opened) stream.request.destroy()

  let lost = 0
  let duplicates = 0
  let delivered = 0
  const toLastStream: number[] = []
  const perDelivery: number[] = []
  for (let index = 0; index < events; index += 1) {
    const marker = `Fan out ${index}`
    let last: number | undefined
    for (const stream of opened) {
      const copies = stream.received.get(marker) ?? []
      if (copies.length === 0) lost += 1
      else {
        delivered += 1
        duplicates += copies.length - 1
        perDelivery.push(copies[0]!)
        last = Math.max(last ?? 0, copies[0]!)
      }
    }
    if (last !== undefined) toLastStream.push(last)
  }
  const expected = events * streams
  const ms = (values: number[], p: number) =>
    values.length === 0 ? '—' : `${percentile(values, p)} ms`
  report(
    'cluster-fan-out',
    ['fan-out measure', 'result', 'goal'],
    [
      ['event streams (per replica)', `${streams} (${spread.join(', ')})`, '600 over 3'],
      ['events published (failed)', `${events} (${publishFailures.length})`, '200 (0)'],
      ['deliveries expected / made', `${expected} / ${delivered}`, ''],
      ['lost', String(lost), '0'],
      ['duplicates', String(duplicates), '0'],
      [
        'event → last stream that got it, p50 / p99',
        `${ms(toLastStream, 50)} / ${ms(toLastStream, 99)}`,
        'p99 ≤ 100 ms',
      ],
      ['event → each delivery, p50 / p99', `${ms(perDelivery, 50)} / ${ms(perDelivery, 99)}`, ''],
    ],
    {
      streams,
      events,
      spread,
      lost,
      duplicates,
      delivered,
      expected,
      toLastStream,
      publishFailures,
    },
  )
  if (lost > 0)
    console.log(
      `  ${((100 * lost) / expected).toFixed(1)} % of deliveries lost: an event published on one replica ` +
        `reached ${lost === expected ? 'no stream' : 'only some streams'}; the outbox (issue 15, item 1) is what carries it to the others.`,
    )

  // Failover under load: a drain, then a crash, each 2 s into a run.
  const underLoad = async (name: string, signal: NodeJS.Signals) => {
    const stopped = sleep(2000).then(() => cluster.kill(name, signal))
    const result = await load(`${lbUrl}/api/me`, cookie, 6)
    await stopped
    return result
  }
  const drained = await underLoad('bff2', 'SIGTERM')
  const killed = await underLoad('bff3', 'SIGKILL')
  const after = await cluster.backends()
  report(
    'cluster-failover',
    ['GET /api/me through HAProxy, 6 s', 'requests/s', 'p99', 'errors', 'retried elsewhere'],
    [
      [
        'bff2 stopped (SIGTERM, drains) after 2 s',
        String(drained.rps),
        `${drained.p99} ms`,
        String(drained.errors),
        String(after.find((state) => state.name === 'bff2')?.redispatched ?? 0),
      ],
      [
        'bff3 killed (SIGKILL) after 2 s',
        String(killed.rps),
        `${killed.p99} ms`,
        String(killed.errors),
        String(after.find((state) => state.name === 'bff3')?.redispatched ?? 0),
      ],
    ],
    { drained, killed, after },
  )
} finally {
  await cluster.close()
}
