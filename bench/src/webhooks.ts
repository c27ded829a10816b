/**
 * Stripe webhooks at the BFF: real events from the Stripe stand-in (a few hundred subscriptions
 * bought, some cancelled at period end or moved to another plan), signed like Stripe, 10 % of
 * them sent twice, the whole lot shuffled, pushed at the BFF's `POST /api/billing/webhook` over
 * loopback with 32 requests in flight (node:http on a keep-alive Agent: global fetch cost this
 * process about twice the CPU, and it shares two cores with the servers). A non-2xx answer is
 * retried, as Stripe would.
 *
 * Run once on the embedded database (PGlite, in the BFF's process) and once on a PostgreSQL server
 * (Debian's, fsync off like the test pass), each compared with a bare insert loop on the same
 * database in the same run: one autocommit INSERT of the event's id, type and payload per event,
 * with the same concurrency. Reported: deliveries/s (duplicates included), latency, and what
 * matters most — events lost (no ledger row), double-applied (accepted more than once), and
 * subscriptions whose stored row differs from Stripe's at the end.
 *
 * A bare Hono route in the same child (reads the body, answers 200) is pushed the same deliveries
 * first: it shows what the machine allows for HTTP alone in this run.
 *
 * The BFF and the database client run in a child process, so the load generator never shares
 * their event loop; the Stripe stand-in the BFF re-fetches from runs in a process of its own, as
 * Stripe is not in the BFF's process in production (the scenario is made on an in-process
 * stand-in, whose saved state that process then serves). The BFF runs as deployed: the access
 * log at `info` (one JSON line per request) on stdout, a pipe this process reads into
 * `.tessera/bench-webhooks/server-*.log` (as under a container runtime); the processes talk over
 * IPC channels, never stdout.
 * Goal on the server (issue 21): ≥ 2,000 deliveries/s, 0 lost, 0 double-applied, 0 wrong final
 * states.
 * `BENCH_WEBHOOK_SUBSCRIPTIONS` (default 300), `BENCH_WEBHOOK_CONCURRENCY` (default 32) and, for
 * quick iterations, `BENCH_WEBHOOK_TARGETS` (default `pglite,postgres`).
 * One subscription's purchase, cancellation and plan change are one emulated second apart, as in
 * life; `BENCH_WEBHOOK_SAME_SECOND=1` puts them in one second (events that tie are re-fetched).
 */
import { spawn } from 'node:child_process'
import { createHmac, randomUUID } from 'node:crypto'
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { serve as serveHttp } from '@hono/node-server'
import { startBff } from '@tessera/bff/node'
import { planList, stripePrices } from '@tessera/contracts'
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import type { Sql } from '@tessera/db/sql'
import type { StripeEmulatorControl } from '@tessera/emulators/stripe/app'
import { startStripeEmulator } from '@tessera/emulators/stripe/node'
import { Hono } from 'hono'
import Stripe from 'stripe'
import { startPostgresServer } from '../../scripts/lib/postgres-server.ts'
import { freePort } from '../../scripts/lib/stack.ts'
import {
  differences,
  stateOf,
  stateOfRow,
  stripeSubscriptionSchema,
} from '@tessera/bff/modules/billing/subscription-state'
import type { BillingSubscriptionRow } from '@tessera/bff/platform/db/schema'
import { median, percentile, repoRoot, report } from './lib.ts'

const SECRET = 'whsec_bench_webhooks'
const subscriptionCount = Number(process.env.BENCH_WEBHOOK_SUBSCRIPTIONS ?? 300)
// A real subscription is not bought, cancelled and moved to another plan within one second: by
// default the stand-in's clock moves a second between one subscription's actions. `1` keeps them
// in the same emulated second (the worst case: every tie is re-fetched from Stripe).
const sameSecond = process.env.BENCH_WEBHOOK_SAME_SECOND === '1'
const scenario = sameSecond
  ? "each subscription's actions in one emulated second (ties re-fetched)"
  : "a subscription's actions one emulated second apart"
const concurrency = Number(process.env.BENCH_WEBHOOK_CONCURRENCY ?? 32)
const duplicateShare = 0.1
const maxAttempts = 6
const workDir = path.join(repoRoot, '.tessera/bench-webhooks')

type Target = 'pglite' | 'postgres'
// For quick iterations: `BENCH_WEBHOOK_TARGETS=postgres` measures the server alone.
const targets = (process.env.BENCH_WEBHOOK_TARGETS ?? 'pglite,postgres')
  .split(',')
  .filter((name): name is Target => name === 'pglite' || name === 'postgres')

interface Ready {
  bffUrl: string
  /** A bare Hono route in the same process that reads the body and answers 200: the machine's pace. */
  bareHttpUrl: string
  eventsFile: string
}

/** Messages between this process and the servers' (over the IPC channel, never stdout). */
type Command = 'bare' | 'verify' | 'close'
type FromServers = { ready: Ready } | { bare: BareResult } | { verify: Verification }

interface BareResult {
  rows: number
  seconds: number
}

interface Verification {
  uniqueEvents: number
  ledgerRows: number
  /** Events of the run with no ledger row. */
  lost: number
  subscriptions: number
  /** Subscriptions whose stored row is missing or differs from Stripe's. */
  wrongState: number
  refetched: number
}

// ------------------------------------------------------------------ child: the servers

async function createScenario(sql: Sql, stripe: Stripe, control: StripeEmulatorControl) {
  const prices = new Map<string, string>()
  for (const plan of planList) {
    if (plan.lookupKey === null) continue
    const found = await stripe.prices.list({ lookup_keys: [plan.lookupKey] })
    prices.set(plan.id, found.data[0]?.id ?? '')
  }
  for (let i = 0; i < subscriptionCount; i++) {
    const userId = randomUUID()
    const email = `bench-webhooks-${i}-${userId.slice(0, 8)}@example.com`
    await sql.query(
      `insert into auth.users (id, email, aud, role, created_at, updated_at)
       values ($1, $2, 'authenticated', 'authenticated', now(), now())`,
      [userId, email],
    )
    const customer = await stripe.customers.create({ email, metadata: { user_id: userId } })
    await sql.query(
      'insert into public.billing_customers (user_id, stripe_customer_id) values ($1, $2)',
      [userId, customer.id],
    )
    const plan = i % 4 === 0 ? 'team' : 'pro'
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: prices.get(plan) ?? '', quantity: 1 }],
      success_url: 'http://localhost/billing/return?session_id={CHECKOUT_SESSION_ID}',
      metadata: { user_id: userId, plan },
    })
    const paid = control.payCheckoutSession(session.id, {
      number: '4242424242424242',
      expiry: '12 / 40',
      cvc: '123',
      name: 'Bench',
    })
    if (!paid.ok) throw new Error(`paying the checkout failed: ${paid.rejection.message}`)
    const completed = { subscription: String(paid.session.subscription) }
    if (i % 3 === 0) {
      if (!sameSecond) control.advanceClock(1)
      await stripe.subscriptions.update(completed.subscription, { cancel_at_period_end: true })
    }
    if (i % 5 === 0) {
      if (!sameSecond) control.advanceClock(1)
      const sub = await stripe.subscriptions.retrieve(completed.subscription)
      await stripe.subscriptions.update(completed.subscription, {
        items: [
          {
            id: sub.items.data[0]?.id ?? '',
            price: prices.get(plan === 'pro' ? 'team' : 'pro') ?? '',
          },
        ],
        proration_behavior: 'none',
      })
    }
    // Groups of subscriptions a minute apart: some events share a second, most do not.
    if (i % 25 === 24) control.advanceClock(60)
  }
}

async function serve(target: Target, databaseUrl: string | undefined): Promise<void> {
  mkdirSync(workDir, { recursive: true })
  const dataDir = path.join(workDir, 'pglite')
  if (target === 'pglite') rmSync(dataDir, { recursive: true, force: true })
  const sql = await openDatabase(databaseUrl === undefined ? { dataDir } : { url: databaseUrl })
  await prepareDatabase(sql, {
    bootstrap: true,
    migrationsDir: path.join(repoRoot, 'supabase/migrations'),
  })
  // The scenario is made on a stand-in in this process (its test controls are in-process only),
  // whose state is then served by a process of its own for the measured part: Stripe is not in
  // the BFF's process in production, and its work (each re-fetch) should not count as the BFF's.
  const stateFile = path.join(workDir, `stripe-${target}.json`)
  rmSync(stateFile, { force: true })
  const emulator = await startStripeEmulator({
    port: 0,
    webhookUrl: null,
    seed: stripePrices,
    stateFile,
  })
  await createScenario(sql, stripeAt(emulator.port), emulator.control)
  const events = emulator.control.events().map((entry) => entry.event)
  await emulator.close()
  const standIn = await startStandIn(stateFile)
  const stripe = stripeAt(standIn.port)
  const eventsFile = path.join(workDir, `events-${target}.json`)
  writeFileSync(eventsFile, JSON.stringify(events))
  await sql.exec(
    'create table if not exists public.bench_bare_events (id text primary key, type text not null, payload jsonb not null, received_at timestamptz not null default now())',
  )

  const bff = await startBff({
    sql,
    env: {
      PORT: '0',
      HOST_NAME: '127.0.0.1',
      // As deployed: the access log is part of every delivery's cost.
      LOG_LEVEL: 'info',
      STRIPE_API_URL: standIn.url,
      STRIPE_SECRET_KEY: 'sk_test_bench',
      STRIPE_WEBHOOK_SECRET: SECRET,
      REGISTRY_FILE: path.join(workDir, 'registry.json'),
      HOST_DIST: path.join(workDir, 'no-host'),
      ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
    },
  })
  const bare = new Hono().post('/webhook', async (c) =>
    c.json({ received: true, eventId: (await c.req.text()).length, outcome: 'bare' }),
  )
  const bareServer = serveHttp({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' })
  await new Promise((resolve) => bareServer.once('listening', resolve))
  const ready: Ready = {
    bffUrl: bff.url.replace('localhost', '127.0.0.1'),
    bareHttpUrl: `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`,
    eventsFile,
  }
  const send = (message: FromServers) => process.send?.(message)
  const commands = (async function* () {
    const queue: Command[] = []
    let wake: (() => void) | null = null
    process.on('message', (message: Command) => {
      queue.push(message)
      wake?.()
    })
    for (;;) {
      const command = queue.shift()
      if (command === 'close') return
      if (command !== undefined) yield command
      else await new Promise<void>((resolve) => (wake = resolve))
    }
  })()
  send({ ready })
  for await (const line of commands) {
    if (line === 'bare') {
      let next = 0
      const started = performance.now()
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < events.length) {
            const event = events[next++]!
            await sql.query(
              'insert into public.bench_bare_events (id, type, payload) values ($1, $2, $3::jsonb)',
              [event.id, event.type, JSON.stringify(event)],
            )
          }
        }),
      )
      send({ bare: { rows: events.length, seconds: (performance.now() - started) / 1000 } })
    } else if (line === 'verify') {
      const ledger = new Map(
        (
          await sql.query<{ id: string; outcome: string }>(
            'select id, outcome from public.billing_events',
          )
        ).rows.map((row) => [row.id, row.outcome]),
      )
      const rows = new Map(
        (
          await sql.query<BillingSubscriptionRow>('select * from public.billing_subscriptions')
        ).rows.map((row) => [row.stripe_subscription_id, row]),
      )
      let subscriptions = 0
      let wrongState = 0
      for await (const listed of stripe.subscriptions.list({ status: 'all', limit: 100 })) {
        subscriptions += 1
        const row = rows.get(listed.id)
        const expected = stateOf(stripeSubscriptionSchema.parse(listed))
        if (row === undefined || differences(stateOfRow(row), expected).length > 0) wrongState += 1
      }
      const verification: Verification = {
        uniqueEvents: events.length,
        ledgerRows: ledger.size,
        lost: events.filter((event) => !ledger.has(event.id)).length,
        subscriptions,
        wrongState,
        refetched: [...ledger.values()].filter((outcome) => outcome === 'refetched').length,
      }
      send({ verify: verification })
    }
  }
  bareServer.close()
  await bff.close()
  await standIn.close()
  await sql.close()
  process.exit(0)
}

const stripeAt = (port: number) =>
  new Stripe('sk_test_bench', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 })

/** The Stripe stand-in serving `stateFile` in a process of its own. */
function startStandIn(
  stateFile: string,
): Promise<{ url: string; port: number; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--stripe', stateFile],
    { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the Stripe stand-in exited with ${code}`)))
    child.once('message', (message: { url: string; port: number }) =>
      resolve({
        ...message,
        close: async () => {
          child.send('close')
          await exited
        },
      }),
    )
  })
}

/** The stand-in's process: serves the saved state until told to close. */
async function serveStandIn(stateFile: string): Promise<void> {
  const running = await startStripeEmulator({
    port: 0,
    webhookUrl: null,
    seed: stripePrices,
    stateFile,
  })
  process.once('message', () => {
    void running.close().then(() => process.exit(0))
  })
  // Its parent gone (a crashed run), it goes too.
  process.once('disconnect', () => process.exit(0))
  process.send?.({ url: running.url, port: running.port })
}

// ------------------------------------------------------------------ parent: the load

interface Child {
  ready: Ready
  bare(): Promise<BareResult>
  verify(): Promise<Verification>
  close(): Promise<void>
}

function startChild(target: Target, databaseUrl: string | undefined): Promise<Child> {
  // The same loader flags (tsx) this process was started with; no npx or tsx wrapper processes.
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      fileURLToPath(import.meta.url),
      '--serve',
      target,
      ...(databaseUrl ? [databaseUrl] : []),
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  )
  // The BFF's log (one JSON line per request at `info`, as deployed) goes to a pipe that another
  // process reads, as under a container runtime: here into a file.
  mkdirSync(workDir, { recursive: true })
  child.stdout!.pipe(createWriteStream(path.join(workDir, `server-${target}.log`)))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const waiting: {
    bare: Array<(value: BareResult) => void>
    verify: Array<(value: Verification) => void>
  } = { bare: [], verify: [] }
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the benchmark servers exited with ${code}`)))
    child.on('message', (message: FromServers) => {
      if ('ready' in message) {
        resolve({
          ready: message.ready,
          bare: () =>
            new Promise((done) => {
              waiting.bare.push(done)
              child.send('bare' satisfies Command)
            }),
          verify: () =>
            new Promise((done) => {
              waiting.verify.push(done)
              child.send('verify' satisfies Command)
            }),
          close: async () => {
            child.send('close' satisfies Command)
            await exited
          },
        })
      } else if ('bare' in message) waiting.bare.shift()?.(message.bare)
      else waiting.verify.shift()?.(message.verify)
    })
  })
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}

function sign(payload: string): string {
  const timestamp = Math.floor(Date.now() / 1000)
  const signature = createHmac('sha256', SECRET).update(`${timestamp}.${payload}`).digest('hex')
  return `t=${timestamp},v1=${signature}`
}

interface PushResult {
  deliveries: number
  uniqueEvents: number
  seconds: number
  latencies: number[]
  retried: number
  failed: number
  doubleApplied: number
  outcomes: Record<string, number>
}

/**
 * The load's HTTP client: node:http on a keep-alive Agent, one socket per request in flight.
 * Global fetch (undici behind WHATWG streams) cost about twice the CPU per request, and this
 * process shares the machine's two cores with the servers; both routes use this same client.
 */
function createClient(base: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const { hostname, port } = new URL(base)
  return {
    post(path: string, headers: Record<string, string>, body: string) {
      return new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(
          {
            agent,
            hostname,
            port,
            path,
            method: 'POST',
            headers: { ...headers, 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            const chunks: Buffer[] = []
            response.on('data', (chunk: Buffer) => chunks.push(chunk))
            response.on('end', () =>
              resolve({
                status: response.statusCode ?? 0,
                text: Buffer.concat(chunks).toString('utf8'),
              }),
            )
            response.on('error', reject)
          },
        )
        request.on('error', reject)
        request.end(body)
      })
    },
    close: () => agent.destroy(),
  }
}

async function push(
  url: string,
  events: { id: string }[],
  path = '/api/billing/webhook',
): Promise<PushResult> {
  const client = createClient(url)
  const payloads = new Map(events.map((event) => [event.id, JSON.stringify(event, null, 2)]))
  const ids = events.map((event) => event.id)
  const duplicates = shuffle([...ids]).slice(0, Math.round(ids.length * duplicateShare))
  const deliveries = shuffle([...ids, ...duplicates])
  const accepted = new Map<string, number>()
  const outcomes: Record<string, number> = {}
  const latencies: number[] = []
  let retried = 0
  let failed = 0
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < deliveries.length) {
        const id = deliveries[next++]!
        const payload = payloads.get(id)!
        for (let attempt = 1; ; attempt++) {
          const sent = performance.now()
          const { status, text } = await client.post(
            path,
            {
              'content-type': 'application/json; charset=utf-8',
              'stripe-signature': sign(payload),
            },
            payload,
          )
          latencies.push(performance.now() - sent)
          if (status >= 200 && status < 300) {
            const { outcome } = JSON.parse(text) as { outcome: string }
            outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
            if (outcome !== 'duplicate') accepted.set(id, (accepted.get(id) ?? 0) + 1)
            break
          }
          if (attempt >= maxAttempts) {
            failed += 1
            break
          }
          retried += 1
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt))
        }
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  client.close()
  return {
    deliveries: deliveries.length,
    uniqueEvents: ids.length,
    seconds,
    latencies,
    retried,
    failed,
    doubleApplied: [...accepted.values()].filter((count) => count > 1).length,
    outcomes,
  }
}

async function measure(target: Target) {
  const server = target === 'postgres' ? startPostgresServer(await freePort()) : undefined
  try {
    const child = await startChild(target, server?.url)
    try {
      const events = JSON.parse(readFileSync(child.ready.eventsFile, 'utf8')) as { id: string }[]
      const bareHttp = await push(child.ready.bareHttpUrl, events, '/webhook')
      const pushed = await push(child.ready.bffUrl, events)
      const bare = await child.bare()
      const verified = await child.verify()
      return { target, bareHttp, pushed, bare, verified }
    } finally {
      await child.close()
    }
  } finally {
    server?.stop()
  }
}

if (process.argv.includes('--stripe')) {
  await serveStandIn(process.argv[process.argv.indexOf('--stripe') + 1] ?? '')
} else if (process.argv.includes('--serve')) {
  const at = process.argv.indexOf('--serve')
  await serve(process.argv[at + 1] as Target, process.argv[at + 2])
} else {
  // The machine's load, kept with the figures: on a shared machine it explains a slow run.
  const loadBefore = os.loadavg()
  const runs = []
  for (const target of targets) runs.push(await measure(target))
  const rows = runs.map(({ target, bareHttp, pushed, bare, verified }) => {
    const rate = pushed.deliveries / pushed.seconds
    const bareRate = bare.rows / bare.seconds
    return [
      target === 'pglite' ? 'PGlite (in the BFF)' : 'PostgreSQL 15 server',
      (bareHttp.deliveries / bareHttp.seconds).toFixed(0),
      bareRate.toFixed(0),
      rate.toFixed(0),
      (rate / (bareHttp.deliveries / bareHttp.seconds)).toFixed(2),
      (rate / bareRate).toFixed(2),
      `${median(pushed.latencies).toFixed(1)} / ${percentile(pushed.latencies, 99).toFixed(1)} ms`,
      `${pushed.uniqueEvents} + ${pushed.deliveries - pushed.uniqueEvents}`,
      String(pushed.retried),
      String(verified.lost + pushed.failed),
      String(pushed.doubleApplied + Math.max(0, verified.ledgerRows - verified.uniqueEvents)),
      `${verified.wrongState} of ${verified.subscriptions}`,
      String(verified.refetched),
    ]
  })
  const server = runs.find((run) => run.target === 'postgres')
  const met =
    server !== undefined &&
    server.pushed.deliveries / server.pushed.seconds >= 2000 &&
    server.verified.lost + server.pushed.failed === 0 &&
    server.pushed.doubleApplied === 0 &&
    server.verified.wrongState === 0
  console.log(`scenario: ${scenario}`)
  report(
    'webhooks',
    [
      `database (${concurrency} in flight)`,
      'bare HTTP route, req/s',
      'bare insert loop, rows/s',
      'webhooks, deliveries/s',
      'webhooks ÷ bare HTTP',
      'webhooks ÷ bare insert',
      'latency p50 / p99',
      'events + duplicates',
      'retried',
      'lost',
      'double-applied',
      'wrong final state',
      're-fetched from Stripe',
    ],
    [
      ...rows,
      [
        `goal on the server: ≥ 2,000/s, 0 lost, 0 double-applied, 0 wrong final states (${scenario})`,
        '',
        '',
        met ? 'met' : 'missed',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ],
    ],
    {
      subscriptions: subscriptionCount,
      concurrency,
      scenario,
      loadAverage: { before: loadBefore, after: os.loadavg(), cpus: os.cpus().length },
      runs: runs.map(({ pushed, bareHttp, ...rest }) => ({
        ...rest,
        bareHttp: { ...bareHttp, latencies: undefined },
        pushed: { ...pushed, latencies: undefined },
      })),
    },
  )
}
