/**
 * A plugin's API through the BFF (`/api/plugins/<name>/*`: session, CSRF and body checks, the
 * plugin token, the forward and the access log) against the same upstream called directly, in one
 * run. Goal (issue 16): the proxy adds ≤ 1 ms per request (median) and keeps ≥ 0.5 of the direct
 * requests/s.
 *
 * Two upstreams, each measured both ways:
 * - the service a team gets from `npm run remote -- new notes --with-api`, rendered from
 *   tooling/remote-template and started with its own `npm start` (`tsx src/bin/start.ts`): it
 *   verifies the BFF's ES256 JWT on every request (jose, keys from the BFF's JWKS). Called
 *   directly it gets a valid token of the BFF's key, signed here by the BFF's own signer: the goal
 *   is measured against this one, the real thing a team runs;
 * - a bare Hono service answering a constant JSON without reading the token, for reference.
 *
 * Processes, so none shares an event loop with another: this one (the load), the stack with the
 * BFF as deployed (every middleware, the access log at `info` on a piped stdout, as api-me runs
 * it), and each upstream. Throughput is autocannon at 50 connections on loopback, the paths
 * alternating within each round; the per-request overhead is the difference of median latencies
 * of one request at a time, alternating the paths so all see the same machine.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createWriteStream, mkdirSync, rmSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import autocannon from 'autocannon'
import { Hono } from 'hono'
import { entitlementsOf } from '@tessera/contracts'
import { createPluginTokens } from '@tessera/bff/modules/plugins/plugin-tokens'
import {
  generatePrivateJwk,
  loadPluginSigningKeys,
} from '@tessera/bff/modules/plugins/signing-keys'
import { renderRemote } from '../../scripts/deploy/remote-new.ts'
import { freePort, startStack } from '../../scripts/lib/stack.ts'
import { signInBenchAccount } from './bench-account.ts'
import { median, repoRoot, report } from './lib.ts'

const connections = 50
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const sequential = Number(process.env.BENCH_SEQUENTIAL ?? 2000)
const dataDir = '.tessera/bench-plugin-api'
/** The bare upstream's plugin name, and the scaffolded service's. */
const plugin = 'bench'
const team = 'notes'
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

/** Child: the stack, with both upstreams mapped, and one signed-in account. */
async function serveBff(upstream: string, teamUpstream: string, bffPort: number): Promise<void> {
  process.env.PLUGIN_UPSTREAMS = `${plugin}=${upstream},${team}=${teamUpstream}`
  const stack = await startStack({ bffPort, cdnPort: 0, dataDir, logLevel: 'info' })
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

function startChild(args: string[], log: string, env: Record<string, string> = {}): Promise<Child> {
  // BENCH_CPU_PROF=<dir>: the BFF writes a V8 CPU profile there when it exits (node --cpu-prof).
  const profile =
    args[0] === '--bff' && process.env.BENCH_CPU_PROF !== undefined
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : []
  const child: ChildProcess = spawn(
    process.execPath,
    [...profile, ...process.execArgv, self, ...args],
    {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
    },
  )
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

/**
 * The scaffolded service, as a team runs it: `remotes/notes/api` rendered from the template (into
 * the benchmark's data folder, not into remotes/) and started with its own start command, told
 * the BFF's issuer and keys as `npm start` tells it.
 */
async function startTeamService(bffPort: number): Promise<{ url: string; close(): void }> {
  const dir = path.join(repoRoot, dataDir, team)
  const files = await renderRemote({ name: team, withApi: true, slot: null }, { orders: [] })
  for (const [file, text] of files) {
    if (!file.startsWith('api/')) continue
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await writeFile(path.join(dir, file), text)
  }
  const port = await freePort()
  const child = spawn(path.join(repoRoot, 'node_modules/.bin/tsx'), ['src/bin/start.ts'], {
    cwd: path.join(dir, 'api'),
    env: {
      ...process.env,
      PORT: String(port),
      TESSERA_PUBLIC_ORIGIN: `http://localhost:${bffPort}`,
      TESSERA_JWKS_URL: `http://127.0.0.1:${bffPort}/.well-known/jwks.json`,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${team}'s API exited with ${code}`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve()
    })
  })
  child.stdout!.pipe(createWriteStream(path.join(repoRoot, dataDir, 'team-service.log')))
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      child.removeAllListeners('exit')
      child.kill('SIGTERM')
    },
  }
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
  headersOf: () => Promise<Record<string, string>>,
  bff: Child,
  duration = seconds,
): Promise<Load> {
  const headers = await headersOf()
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

interface Path {
  url: string
  /** Its headers for the next requests (a direct call to the scaffolded service: a fresh JWT). */
  headers: () => Promise<Record<string, string>>
}

/** Median latencies of one request at a time, the paths alternating. */
async function latencies(paths: Path[]): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const times = paths.map(() => [] as number[])
  try {
    for (let i = 0; i < sequential; i++) {
      for (const [index, { url, headers }] of paths.entries()) {
        const sent = await headers()
        times[index]!.push(await timedGet(agent, url, sent))
      }
    }
  } finally {
    agent.destroy()
  }
  return times.map(median)
}

if (process.argv.includes('--upstream')) {
  await serveUpstream()
} else if (process.argv.includes('--bff')) {
  const at = process.argv.indexOf('--bff')
  await serveBff(
    process.argv[at + 1] ?? '',
    process.argv[at + 2] ?? '',
    Number(process.argv[at + 3] ?? 0),
  )
} else {
  // A fresh database each run: the same rows every time, and no state left by an older checkout.
  rmSync(path.join(repoRoot, dataDir), { recursive: true, force: true })
  mkdirSync(path.join(repoRoot, dataDir), { recursive: true })
  // The BFF's plugin key, given to it as an operator would (PLUGIN_JWT_PRIVATE_KEY); this process
  // signs the direct calls' tokens with it, through the BFF's own signer and the same claims.
  const privateKey = JSON.stringify(await generatePrivateJwk())
  const bffPort = await freePort()
  const issuer = `http://localhost:${bffPort}`
  const keys = await loadPluginSigningKeys({ privateKey })
  const signer = createPluginTokens({ keys: async () => keys, issuer, clock: { now: Date.now } })
  let minted = { token: '', at: 0 }
  /** A valid token for the scaffolded service, re-signed every 20 s (it lives 60 s). */
  const teamToken = async (): Promise<Record<string, string>> => {
    if (Date.now() - minted.at > 20_000) {
      const token = await signer.issue(team, {
        userId: '00000000-0000-4000-8000-000000000001',
        email: 'bench@example.com',
        entitlements: entitlementsOf(null),
      })
      minted = { token, at: Date.now() }
    }
    return { authorization: `Bearer ${minted.token}` }
  }

  const upstream = await startChild(['--upstream'], 'upstream.log')
  const teamService = await startTeamService(bffPort)
  let bff: Child | undefined
  try {
    bff = await startChild(
      ['--bff', upstream.url, teamService.url, String(bffPort)],
      'server.log',
      {
        PLUGIN_JWT_PRIVATE_KEY: privateKey,
      },
    )
    const signedIn = { cookie: bff.cookie ?? '' }
    const cookie = () => Promise.resolve(signedIn)
    const none = () => Promise.resolve({})
    const paths = {
      bareDirect: { url: `${upstream.url}/items`, headers: none },
      bareProxied: { url: `${bff.url}/api/plugins/${plugin}/items`, headers: cookie },
      teamDirect: { url: `${teamService.url}/hello`, headers: teamToken },
      teamProxied: { url: `${bff.url}/api/plugins/${team}/hello`, headers: cookie },
      // For scale: a route of the BFF's own behind the same middleware and session, no upstream.
      me: { url: `${bff.url}/api/me`, headers: cookie },
    } satisfies Record<string, Path>
    for (const [name, { url, headers }] of Object.entries(paths)) {
      const check = await fetch(url, { headers: await headers() })
      if (check.status !== 200)
        throw new Error(`${name} (${url}) answers ${check.status}: ${await check.text()}`)
    }
    // Without a token the scaffolded service refuses: it really verifies.
    const refused = await fetch(paths.teamDirect.url)
    if (refused.status !== 401)
      throw new Error(`the scaffolded service answered ${refused.status} without a token`)

    const names = Object.keys(paths) as Array<keyof typeof paths>
    // Warm-up for each (JIT, caches, kept-alive connections, the JWKS), discarded.
    for (const name of names) await load(paths[name].url, paths[name].headers, bff, 2)
    const loads = Object.fromEntries(names.map((name) => [name, [] as Load[]])) as Record<
      keyof typeof paths,
      Load[]
    >
    for (let i = 0; i < rounds; i++) {
      for (const name of names)
        loads[name].push(await load(paths[name].url, paths[name].headers, bff))
    }
    const [bareDirect, bareProxied, teamDirect, teamProxied] = await latencies([
      paths.bareDirect,
      paths.bareProxied,
      paths.teamDirect,
      paths.teamProxied,
    ])

    const m = (list: Load[], key: 'rps' | 'p99' | 'bffCpuPerRequest') =>
      median(list.map((r) => r[key]))
    const errors = (list: Load[]) => list.reduce((sum, r) => sum + r.errors, 0)
    const bareRatio = m(loads.bareProxied, 'rps') / m(loads.bareDirect, 'rps')
    const teamRatio = m(loads.teamProxied, 'rps') / m(loads.teamDirect, 'rps')
    const bareOverhead = bareProxied! - bareDirect!
    const teamOverhead = teamProxied! - teamDirect!
    // Each round measures the two paths of a pair back to back: their ratio round by round shows
    // how much of the spread is the machine (shared with other sessions) rather than the proxy.
    const perRound = (proxied: Load[], direct: Load[]) =>
      proxied.map((load, index) => Number((load.rps / direct[index]!.rps).toFixed(2)))
    const teamRounds = perRound(loads.teamProxied, loads.teamDirect)
    const bareRounds = perRound(loads.bareProxied, loads.bareDirect)
    const met = teamRatio >= 0.5 && teamOverhead <= 1
    const row = (label: string, list: Load[], latency: number | undefined) => [
      label,
      m(list, 'rps').toFixed(0),
      `${m(list, 'p99')} ms`,
      latency === undefined ? '' : `${latency.toFixed(3)} ms`,
      String(errors(list)),
    ]
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
        row(
          'the scaffolded service (verifies the JWT), called directly',
          loads.teamDirect,
          teamDirect,
        ),
        row(
          `GET /api/plugins/${team}/hello through the BFF, signed in`,
          loads.teamProxied,
          teamProxied,
        ),
        [
          'through the BFF ÷ direct (goal ≥ 0.5; overhead ≤ 1 ms)',
          teamRatio.toFixed(2),
          '',
          `+${teamOverhead.toFixed(3)} ms`,
          met ? 'met' : 'missed',
        ],
        row(
          'a bare upstream (constant JSON, no token check), called directly',
          loads.bareDirect,
          bareDirect,
        ),
        row(
          `GET /api/plugins/${plugin}/items through the BFF, signed in`,
          loads.bareProxied,
          bareProxied,
        ),
        [
          'through the BFF ÷ direct, bare upstream',
          bareRatio.toFixed(2),
          '',
          `+${bareOverhead.toFixed(3)} ms`,
          '',
        ],
        row('for scale: GET /api/me, signed in (the BFF alone)', loads.me, undefined),
      ],
      {
        connections,
        seconds,
        rounds,
        sequentialRequestsPerPath: sequential,
        bffCpuPerRequestMicros: {
          teamProxied: m(loads.teamProxied, 'bffCpuPerRequest'),
          bareProxied: m(loads.bareProxied, 'bffCpuPerRequest'),
          me: m(loads.me, 'bffCpuPerRequest'),
        },
        latency: { bareDirect, bareProxied, teamDirect, teamProxied },
        ratioPerRound: { team: teamRounds, bare: bareRounds },
        loads,
      },
    )
    console.log(
      `Through the BFF ÷ direct, round by round: scaffolded service ${teamRounds.join(', ')} ` +
        `(median ${median(teamRounds).toFixed(2)}); bare upstream ${bareRounds.join(', ')}`,
    )
    console.log(
      `BFF CPU per request (median): to the scaffolded service ${m(loads.teamProxied, 'bffCpuPerRequest')} µs, ` +
        `to the bare upstream ${m(loads.bareProxied, 'bffCpuPerRequest')} µs, /api/me ${m(loads.me, 'bffCpuPerRequest')} µs`,
    )
  } finally {
    bff?.close()
    teamService.close()
    upstream.close()
  }
}
