/**
 * `GET /api/me` with a valid session cookie (session lookup, token check, profile read under RLS)
 * against a bare Hono route returning the same JSON, measured in the same run with autocannon on
 * loopback at 50 connections. The servers run in a child process so the load generator never
 * shares their event loop. Goal: /api/me ≥ 25 % of the bare route's requests/s, p99 < 25 ms.
 */
import { spawn } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import autocannon from 'autocannon'
import { Hono } from 'hono'
import { startStack } from '../../scripts/lib/stack.ts'
import { signInBenchAccount } from './bench-account.ts'
import { median, repoRoot, report } from './lib.ts'

const HANDSHAKE = 'benchMe'
const connections = 50
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

interface Targets {
  meUrl: string
  bareUrl: string
  cookie: string
}

/** Child: the stack plus a bare route, and one confirmed account whose cookie it hands back. */
async function serveTargets(): Promise<void> {
  const stack = await startStack({
    bffPort: 0,
    cdnPort: 0,
    dataDir: '.tessera/bench-me',
    logLevel: 'warn',
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
  const targets: Targets = { meUrl, bareUrl: `http://127.0.0.1:${barePort}/api/me`, cookie }
  console.log(JSON.stringify({ [HANDSHAKE]: targets }))
  process.stdin.resume()
  process.stdin.once('end', () => {
    server.close()
    void stack.close().then(() => process.exit(0))
  })
}

function startTargets(): Promise<Targets & { close(): void }> {
  const child = spawn('npx', ['tsx', fileURLToPath(import.meta.url), '--serve'], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the benchmark servers exited with ${code}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith(`{"${HANDSHAKE}":`)) return
      const targets = (JSON.parse(line) as Record<string, Targets>)[HANDSHAKE]!
      resolve({ ...targets, close: () => child.stdin!.end() })
    })
  })
}

async function load(url: string, headers: Record<string, string>) {
  const result = await autocannon({ url, connections, duration: seconds, headers })
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

if (process.argv.includes('--serve')) {
  await serveTargets()
} else {
  const targets = await startTargets()
  try {
    await load(targets.meUrl, { cookie: targets.cookie }) // warm-up, discarded
    const bare: Awaited<ReturnType<typeof load>>[] = []
    const me: Awaited<ReturnType<typeof load>>[] = []
    for (let i = 0; i < rounds; i++) {
      bare.push(await load(targets.bareUrl, {}))
      me.push(await load(targets.meUrl, { cookie: targets.cookie }))
    }
    const m = (list: typeof bare, key: 'rps' | 'p99') => median(list.map((r) => r[key]))
    const errors = (list: typeof bare) => list.reduce((sum, r) => sum + r.errors, 0)
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
          '/api/me ÷ bare (goal ≥ 0.25, p99 < 25 ms)',
          (m(me, 'rps') / m(bare, 'rps')).toFixed(2),
          m(me, 'p99') < 25 ? 'met' : 'missed',
          '',
        ],
      ],
      { connections, seconds, rounds, bare, me },
    )
  } finally {
    targets.close()
  }
}
