/**
 * A plugin's API through the BFF (`/api/plugins/bench/*`: session, CSRF and body checks, the
 * plugin token, the forward and the access log) against the same upstream called directly, in one
 * run. Goal (issue 16): the proxy adds ≤ 1 ms per request (median) and keeps ≥ 0.5 of the direct
 * requests/s.
 *
 * Three processes, so none shares an event loop with another: this one (the load), the stack with
 * the BFF as deployed (every middleware, the access log at `info` on a piped stdout, as api-me
 * runs it), and the plugin's upstream (a bare Hono service answering a small JSON). Throughput is
 * autocannon at 50 connections on loopback; the per-request overhead is the difference of median
 * latencies of one request at a time, alternating the two paths so both see the same machine.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createWriteStream, mkdirSync, rmSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import autocannon from 'autocannon'
import { Hono } from 'hono'
import { startStack } from '../../scripts/lib/stack.ts'
import { signInBenchAccount } from './bench-account.ts'
import { median, repoRoot, report } from './lib.ts'

const connections = 50
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const sequential = Number(process.env.BENCH_SEQUENTIAL ?? 2000)
const dataDir = '.tessera/bench-plugin-api'
const plugin = 'bench'
const self = fileURLToPath(import.meta.url)

/** Messages from a child (over the IPC channel, never stdout). */
type FromChild = { ready: { url: string; cookie?: string } } | { cpuMicros: number }

function answerCpu(): void {
  process.on('message', (message) => {
    if (message !== 'cpu') return
    const { user, system } = process.cpuUsage()
    process.send?.({ cpuMicros: user + system } satisfies FromChild)
  })
  process.stdin.resume()
}

/** Child: the plugin team's service. */
async function serveUpstream(): Promise<void> {
  const body = { items: [{ id: 1, title: 'A note' }], total: 1 }
  const app = new Hono().get('/items', (c) => c.json(body))
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  answerCpu()
  process.stdin.once('end', () => server.close(() => process.exit(0)))
  process.send?.({ ready: { url: `http://127.0.0.1:${port}` } } satisfies FromChild)
}

/** Child: the stack, with the upstream mapped, and one signed-in account. */
async function serveBff(upstream: string): Promise<void> {
  process.env.PLUGIN_UPSTREAMS = `${plugin}=${upstream}`
  const stack = await startStack({ bffPort: 0, cdnPort: 0, dataDir, logLevel: 'info' })
  const account = await signInBenchAccount(stack)
  if (!account) throw new Error('the stack offers no sign-up, so there is no session to measure')
  answerCpu()
  process.stdin.once('end', () => void stack.close().then(() => process.exit(0)))
  process.send?.({
    ready: {
      url: stack.appUrl.replace('localhost', '127.0.0.1'),
      cookie: `${account.name}=${account.value}`,
    },
  } satisfies FromChild)
}

interface Child {
  url: string
  cookie: string | undefined
  cpuMicros(): Promise<number>
  close(): void
}

function startChild(args: string[], log: string): Promise<Child> {
  const child: ChildProcess = spawn(process.execPath, [...process.execArgv, self, ...args], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  })
  child.stdout!.pipe(createWriteStream(path.join(repoRoot, dataDir, log)))
  const cpuWaiters: Array<(micros: number) => void> = []
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`a benchmark child exited with ${code}`)))
    child.on('message', (message: FromChild) => {
      if ('cpuMicros' in message) {
        cpuWaiters.shift()?.(message.cpuMicros)
        return
      }
      resolve({
        url: message.ready.url,
        cookie: message.ready.cookie,
        cpuMicros: () =>
          new Promise((answered) => {
            cpuWaiters.push(answered)
            child.send('cpu')
          }),
        close: () => child.stdin!.end(),
      })
    })
  })
}

interface Load {
  rps: number
  p99: number
  errors: number
  requests: number
  /** The BFF's CPU time per request, in microseconds (0 for the direct path). */
  bffCpuPerRequest: number
}

async function load(
  url: string,
  headers: Record<string, string>,
  bff: Child,
  duration = seconds,
): Promise<Load> {
  const before = await bff.cpuMicros()
  const result = await autocannon({ url, connections, duration, headers })
  const cpu = (await bff.cpuMicros()) - before
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
    bffCpuPerRequest: url.startsWith(bff.url)
      ? Math.round(cpu / Math.max(1, result.requests.total))
      : 0,
  }
}

/** One GET on a kept-alive connection, its latency in milliseconds (fractions included). */
function timedGet(agent: http.Agent, url: string, headers: Record<string, string>) {
  return new Promise<number>((resolve, reject) => {
    const started = process.hrtime.bigint()
    const request = http.get(url, { agent, headers }, (response) => {
      response.resume()
      response.once('end', () => {
        if (response.statusCode !== 200) reject(new Error(`${url} answered ${response.statusCode}`))
        else resolve(Number(process.hrtime.bigint() - started) / 1e6)
      })
    })
    request.once('error', reject)
  })
}

/** Median latencies of one request at a time, the two paths alternating. */
async function latencies(
  direct: string,
  proxied: string,
  headers: Record<string, string>,
): Promise<{ direct: number; proxied: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const times = { direct: [] as number[], proxied: [] as number[] }
  try {
    for (let i = 0; i < sequential; i++) {
      times.direct.push(await timedGet(agent, direct, {}))
      times.proxied.push(await timedGet(agent, proxied, headers))
    }
  } finally {
    agent.destroy()
  }
  return { direct: median(times.direct), proxied: median(times.proxied) }
}

if (process.argv.includes('--upstream')) {
  await serveUpstream()
} else if (process.argv.includes('--bff')) {
  await serveBff(process.argv[process.argv.indexOf('--bff') + 1] ?? '')
} else {
  // A fresh database each run: the same rows every time, and no state left by an older checkout.
  rmSync(path.join(repoRoot, dataDir), { recursive: true, force: true })
  mkdirSync(path.join(repoRoot, dataDir), { recursive: true })
  const upstream = await startChild(['--upstream'], 'upstream.log')
  let bff: Child | undefined
  try {
    bff = await startChild(['--bff', upstream.url], 'server.log')
    const direct = `${upstream.url}/items`
    const proxied = `${bff.url}/api/plugins/${plugin}/items`
    const headers = { cookie: bff.cookie ?? '' }
    const check = await fetch(proxied, { headers })
    if (check.status !== 200)
      throw new Error(`the proxied path answers ${check.status}: ${await check.text()}`)

    // Warm-up for both (JIT, caches, kept-alive connections), discarded.
    await load(direct, {}, bff, 2)
    await load(proxied, headers, bff, 2)
    // For scale: a route of the BFF's own behind the same middleware and session, no upstream.
    const me = `${bff.url}/api/me`
    await load(me, headers, bff, 2)
    const directLoads: Load[] = []
    const proxiedLoads: Load[] = []
    const meLoads: Load[] = []
    for (let i = 0; i < rounds; i++) {
      directLoads.push(await load(direct, {}, bff))
      proxiedLoads.push(await load(proxied, headers, bff))
      meLoads.push(await load(me, headers, bff))
    }
    const latency = await latencies(direct, proxied, headers)

    const m = (list: Load[], key: 'rps' | 'p99' | 'bffCpuPerRequest') =>
      median(list.map((r) => r[key]))
    const errors = (list: Load[]) => list.reduce((sum, r) => sum + r.errors, 0)
    const ratio = m(proxiedLoads, 'rps') / m(directLoads, 'rps')
    const overhead = latency.proxied - latency.direct
    const met = ratio >= 0.5 && overhead <= 1
    report(
      'plugin-api',
      [
        'path (loopback)',
        'requests/s (50 conn., median)',
        'p99 (50 conn.)',
        'median latency (1 conn.)',
        'errors',
      ],
      [
        [
          'the upstream, called directly',
          m(directLoads, 'rps').toFixed(0),
          `${m(directLoads, 'p99')} ms`,
          `${latency.direct.toFixed(3)} ms`,
          String(errors(directLoads)),
        ],
        [
          `GET /api/plugins/${plugin}/items, signed in`,
          m(proxiedLoads, 'rps').toFixed(0),
          `${m(proxiedLoads, 'p99')} ms`,
          `${latency.proxied.toFixed(3)} ms`,
          String(errors(proxiedLoads)),
        ],
        [
          'for scale: GET /api/me, signed in (the BFF alone)',
          m(meLoads, 'rps').toFixed(0),
          `${m(meLoads, 'p99')} ms`,
          '',
          String(errors(meLoads)),
        ],
        [
          'through the BFF ÷ direct (goal ≥ 0.5; overhead ≤ 1 ms)',
          ratio.toFixed(2),
          '',
          `+${overhead.toFixed(3)} ms`,
          met ? 'met' : 'missed',
        ],
      ],
      {
        connections,
        seconds,
        rounds,
        sequentialRequestsPerPath: sequential,
        bffCpuPerRequestMicros: {
          proxied: m(proxiedLoads, 'bffCpuPerRequest'),
          me: m(meLoads, 'bffCpuPerRequest'),
        },
        latency,
        direct: directLoads,
        proxied: proxiedLoads,
        me: meLoads,
      },
    )
    console.log(
      `BFF CPU per request (median): proxied ${m(proxiedLoads, 'bffCpuPerRequest')} µs, ` +
        `/api/me ${m(meLoads, 'bffCpuPerRequest')} µs`,
    )
  } finally {
    bff?.close()
    upstream.close()
  }
}
