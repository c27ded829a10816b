/**
 * `GET /api/me` with a valid session cookie (session lookup, token check, profile read under RLS)
 * against a bare Hono route returning the same JSON, measured in the same run with autocannon on
 * loopback at 50 connections. Goal (issue 21): /api/me ≥ 50 % of the bare route's requests/s, p99
 * < 10 ms.
 *
 * Both servers run in one child process, so the load generator never shares their event loop
 * and both routes are measured on the same layout. The BFF runs as deployed: every middleware, and
 * the access log at `info` (one JSON line per request) on stdout, which is a pipe read by another
 * process (here this one, writing it to `.tessera/bench-me/server.log`), as under a container
 * runtime. The child also reports its CPU time, so the table notes what a request costs the server.
 */
import { spawn } from 'node:child_process'
import { createWriteStream, mkdirSync, rmSync, statSync } from 'node:fs'
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
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const dataDir = '.tessera/bench-me'
/** Issue 21's goal (decision 036); it was ≥ 0.25 with p99 < 25 ms before. */
const goal = { ratio: 0.5, p99Ms: 10 }

interface Targets {
  meUrl: string
  bareUrl: string
  cookie: string
}

/** Messages between this process and the servers' (over the IPC channel, never stdout). */
type FromServers = { ready: Targets } | { cpuMicros: number }

/** Child: the stack plus a bare route, and one confirmed account whose cookie it hands back. */
async function serveTargets(): Promise<void> {
  const send = (message: FromServers) => process.send?.(message)
  const stack = await startStack({
    bffPort: 0,
    cdnPort: 0,
    dataDir,
    // What a deployment runs at: the access log is part of every request's cost.
    logLevel: 'info',
  })
  const account = await signInBenchAccount(stack)
  if (!account) throw new Error('the stack offers no sign-up, so there is no session to measure')
  const cookie = `${account.name}=${account.value}`
  const meUrl = `${stack.appUrl.replace('localhost', '127.0.0.1')}/api/me`
  const me = await fetch(meUrl, { headers: { cookie } })
  const body = (await me.json()) as { user: unknown }
  if (!me.ok || body.user === null)
    throw new Error(`the benchmark account is not signed in: ${me.status}`)

  const bare = new Hono().get('/api/me', (c) => c.json(body))
  const server = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => server.once('listening', resolve))
  const barePort = (server.address() as AddressInfo).port
  process.on('message', (message) => {
    if (message !== 'cpu') return
    const { user, system } = process.cpuUsage()
    send({ cpuMicros: user + system })
  })
  send({ ready: { meUrl, bareUrl: `http://127.0.0.1:${barePort}/api/me`, cookie } })
  process.stdin.resume()
  process.stdin.once('end', () => {
    server.close()
    void stack.close().then(() => process.exit(0))
  })
}

interface Servers extends Targets {
  /** CPU time the servers' process has used so far (user + system), in microseconds. */
  cpuMicros(): Promise<number>
  /** Bytes the servers have written to their log (stdout). */
  logBytes(): number
  close(): void
}

function startServers(): Promise<Servers> {
  // A fresh database each run: the same rows every time, and no state left by an older checkout.
  rmSync(path.join(repoRoot, dataDir), { recursive: true, force: true })
  mkdirSync(path.join(repoRoot, dataDir), { recursive: true })
  // The same loader flags (tsx) this process was started with; no npx or tsx wrapper processes.
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--serve'],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
    },
  )
  const logFile = path.join(repoRoot, dataDir, 'server.log')
  child.stdout!.pipe(createWriteStream(logFile))
  const cpuWaiters: Array<(micros: number) => void> = []
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the benchmark servers exited with ${code}`)))
    child.on('message', (message: FromServers) => {
      if ('cpuMicros' in message) cpuWaiters.shift()?.(message.cpuMicros)
      else
        resolve({
          ...message.ready,
          cpuMicros: () =>
            new Promise((answered) => {
              cpuWaiters.push(answered)
              child.send('cpu')
            }),
          logBytes: () => statSync(logFile).size,
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
  /** Server CPU time per request, in microseconds. */
  cpuPerRequest: number
}

async function load(
  servers: Servers,
  url: string,
  headers: Record<string, string>,
  duration = seconds,
): Promise<Load> {
  const cpuBefore = await servers.cpuMicros()
  const result = await autocannon({ url, connections, duration, headers })
  const cpu = (await servers.cpuMicros()) - cpuBefore
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
    cpuPerRequest: Math.round(cpu / Math.max(1, result.requests.total)),
  }
}

if (process.argv.includes('--serve')) {
  await serveTargets()
} else {
  const servers = await startServers()
  try {
    const meHeaders = { cookie: servers.cookie }
    // Warm-up for both (JIT, caches), discarded.
    await load(servers, servers.bareUrl, {}, 3)
    await load(servers, servers.meUrl, meHeaders, 3)
    const logBefore = servers.logBytes()
    const bare: Load[] = []
    const me: Load[] = []
    for (let i = 0; i < rounds; i++) {
      bare.push(await load(servers, servers.bareUrl, {}))
      me.push(await load(servers, servers.meUrl, meHeaders))
    }
    const logBytes = servers.logBytes() - logBefore
    const meRequests = me.reduce((sum, r) => sum + r.requests, 0)
    const m = (list: Load[], key: 'rps' | 'p99' | 'cpuPerRequest') =>
      median(list.map((r) => r[key]))
    const errors = (list: Load[]) => list.reduce((sum, r) => sum + r.errors, 0)
    report(
      'api-me',
      ['route (50 connections, loopback)', 'requests/s (median)', 'p99 latency', 'errors'],
      [
        [
          'bare Hono route, same JSON',
          m(bare, 'rps').toFixed(0),
          `${m(bare, 'p99')} ms`,
          String(errors(bare)),
        ],
        [
          'GET /api/me, signed in',
          m(me, 'rps').toFixed(0),
          `${m(me, 'p99')} ms`,
          String(errors(me)),
        ],
        [
          `/api/me ÷ bare (goal ≥ ${goal.ratio}, p99 < ${goal.p99Ms} ms)`,
          (m(me, 'rps') / m(bare, 'rps')).toFixed(2),
          // Both halves of the goal.
          m(me, 'rps') / m(bare, 'rps') >= goal.ratio && m(me, 'p99') < goal.p99Ms
            ? 'met'
            : 'missed',
          '',
        ],
      ],
      {
        connections,
        seconds,
        rounds,
        serverCpuPerRequestMicros: { bare: m(bare, 'cpuPerRequest'), me: m(me, 'cpuPerRequest') },
        accessLogBytesPerMeRequest: Math.round(logBytes / Math.max(1, meRequests)),
        bare,
        me,
      },
    )
    console.log(
      `server CPU per request (median): bare ${m(bare, 'cpuPerRequest')} µs, ` +
        `/api/me ${m(me, 'cpuPerRequest')} µs; access log ${Math.round(logBytes / Math.max(1, meRequests))} bytes per /api/me request`,
    )
  } finally {
    servers.close()
  }
}
