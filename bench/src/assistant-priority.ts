/**
 * "Priority answers" under saturation (docs/decisions/028): the OpenAI stand-in generates at most
 * CAPACITY answers at once (a model server's capacity; the others wait with their response
 * open), 100 Free sends arrive at once, and while they saturate it a Pro user sends. Measured:
 * the Pro user's time to the first token (request → first `delta`), and the Free sends', on a BFF
 * without lanes (`ASSISTANT_MODEL_CONCURRENCY=0`: every request goes to the model, which queues
 * them) and on one with them (capacity CAPACITY, RESERVED kept for Pro and Team), over the same
 * database, one after the other. The Pro user's first token on an idle model is the reference.
 *
 * One process: the stand-ins, both BFFs and the load. The effect measured is seconds of queueing,
 * far above what sharing a thread costs (milliseconds); `BENCH_DATABASE_URL` uses a PostgreSQL
 * server instead of PGlite.
 */
import { rmSync } from 'node:fs'
import path from 'node:path'
import { startBff } from '@tessera/bff/node'
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import { startOpenAiEmulator } from '@tessera/emulators/openai/node'
import { startSupabaseEmulator } from '@tessera/emulators/supabase/node'
import { signInBenchAccount } from './bench-account.ts'
import { median, percentile, repoRoot, report, sseEvents } from './lib.ts'

const CAPACITY = 16
const RESERVED = 4
const FREE_SENDS = Number(process.env.BENCH_FREE_SENDS ?? 100)
const PRO_SENDS = 5
/** Each answer takes about 1.6 s to generate: 64 tokens at 40 tokens/s. */
const ANSWER_TOKENS = 64
const TOKENS_PER_SECOND = 40
const ORIGIN = 'http://localhost'

const dataDir = path.join(repoRoot, '.tessera/bench-assistant-priority')
rmSync(dataDir, { recursive: true, force: true })
const databaseUrl = process.env.BENCH_DATABASE_URL
const sql = await openDatabase(
  databaseUrl === undefined ? { dataDir: path.join(dataDir, 'pglite') } : { url: databaseUrl },
)
await prepareDatabase(sql, { bootstrap: true })
const supabase = await startSupabaseEmulator({ db: sql, port: 0, mailboxPort: 0, siteUrl: ORIGIN })
const openai = await startOpenAiEmulator({
  port: 0,
  tokensPerSecond: TOKENS_PER_SECOND,
  maxConcurrentAnswers: CAPACITY,
})
const env = {
  PORT: '0',
  LOG_LEVEL: 'warn',
  PUBLIC_ORIGIN: ORIGIN,
  SUPABASE_URL: supabase.url,
  SUPABASE_ANON_KEY: supabase.anonKey,
  SUPABASE_SERVICE_ROLE_KEY: supabase.serviceRoleKey,
  OPENAI_BASE_URL: `${openai.url}/v1`,
  OPENAI_API_KEY: 'sk-tessera-local',
  ASSISTANT_RATE_LIMIT: '1000000',
  ASSISTANT_MAX_ANSWER_TOKENS: String(ANSWER_TOKENS),
  // Long enough that every send's wait is measured rather than cut off.
  ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '120000',
  ASSISTANT_ABANDONED_HOLD_SECONDS: '600',
  EMAIL_SEND_RATE_LIMIT: '1000',
}
const bffs = {
  without: await startBff({ sql, env: { ...env, ASSISTANT_MODEL_CONCURRENCY: '0' } }),
  with: await startBff({
    sql,
    env: {
      ...env,
      ASSISTANT_MODEL_CONCURRENCY: String(CAPACITY),
      ASSISTANT_PRIORITY_RESERVED: String(RESERVED),
    },
  }),
}

async function account(): Promise<string> {
  const signedIn = await signInBenchAccount({
    appUrl: bffs.with.url,
    mailboxUrl: supabase.mailboxUrl,
  })
  if (signedIn === null) throw new Error('the BFF offers no sign-up')
  return `${signedIn.name}=${signedIn.value}`
}

const headers = (cookie: string) => ({
  cookie,
  origin: ORIGIN,
  'x-tessera-csrf': '1',
  'content-type': 'application/json',
})

async function conversation(url: string, cookie: string): Promise<string> {
  const response = await fetch(`${url}/api/assistant/conversations`, {
    method: 'POST',
    headers: headers(cookie),
    body: '{}',
  })
  if (response.status !== 201) throw new Error(`conversation: ${response.status}`)
  return ((await response.json()) as { conversation: { id: string } }).conversation.id
}

/** Sends and reads the answer; resolves with ms to the first delta (null: none) and the end. */
async function send(url: string, cookie: string, id: string, content: string) {
  const started = performance.now()
  const response = await fetch(`${url}/api/assistant/conversations/${id}/messages`, {
    method: 'POST',
    headers: headers(cookie),
    body: JSON.stringify({ content }),
  })
  if (response.status !== 200 || response.body === null)
    throw new Error(`send: ${response.status} ${await response.text()}`)
  let first: number | null = null
  let last = ''
  const feed = sseEvents((event) => {
    if (event === 'delta' && first === null) first = performance.now() - started
    last = event
  })
  const decoder = new TextDecoder()
  for await (const chunk of response.body) feed(decoder.decode(chunk, { stream: true }))
  return { firstMs: first, ok: last === 'done' }
}

// Ten Free accounts (each send stays well within a Free month) and one Pro account.
const free = await Promise.all(Array.from({ length: 10 }, () => account()))
const pro = await account()
const me = (await (
  await fetch(`${bffs.with.url}/api/me`, { headers: { cookie: pro } })
).json()) as { user: { id: string } }
await sql.query(
  'insert into public.billing_customers (user_id, stripe_customer_id) values ($1, $2)',
  [me.user.id, 'cus_bench_pro'],
)
await sql.query(
  `insert into public.billing_subscriptions
     (stripe_subscription_id, user_id, stripe_customer_id, plan, status, stripe_created_at, version_at)
   values ('sub_bench_pro', $1, 'cus_bench_pro', 'pro', 'active', now(), now())`,
  [me.user.id],
)
// Past the BFFs' 2 s cache of the subscription.
await new Promise((resolve) => setTimeout(resolve, 2500))

interface Round {
  idle: number[]
  saturated: number[]
  free: number[]
  errors: number
}

async function round(mode: keyof typeof bffs): Promise<Round> {
  const url = bffs[mode].url
  const proId = await conversation(url, pro)
  const idle: number[] = []
  for (let index = 0; index < 3; index += 1) {
    const answer = await send(url, pro, proId, `Idle question ${index}`)
    if (answer.firstMs !== null) idle.push(answer.firstMs)
  }
  const ids = await Promise.all(
    Array.from({ length: FREE_SENDS }, (_, index) => conversation(url, free[index % free.length]!)),
  )
  const burst = ids.map((id, index) =>
    send(url, free[index % free.length]!, id, `Free question ${index}`),
  )
  // Once the burst's sends are held and queued (a second), a Pro send every second, each in a
  // conversation of its own, all while the model is saturated (the burst takes 10 s or more).
  const proIds = await Promise.all(Array.from({ length: PRO_SENDS }, () => conversation(url, pro)))
  const proAnswers = await Promise.all(
    proIds.map(async (id, index) => {
      await new Promise((resolve) => setTimeout(resolve, 1000 * (index + 1)))
      return send(url, pro, id, `Saturated question ${index}`)
    }),
  )
  const saturated = proAnswers.flatMap((answer) =>
    answer.firstMs === null || !answer.ok ? [] : [answer.firstMs],
  )
  let errors = proAnswers.length - saturated.length
  const freeAnswers = await Promise.all(burst)
  errors += freeAnswers.filter((answer) => !answer.ok).length
  return {
    idle,
    saturated,
    free: freeAnswers.flatMap((answer) => (answer.firstMs === null ? [] : [answer.firstMs])),
    errors,
  }
}

const rounds = { without: await round('without'), with: await round('with') }
const ms = (value: number) => `${Math.round(value)} ms`
const spread = (values: number[]) =>
  values.length === 0 ? '—' : `${ms(median(values))} (${ms(Math.max(...values))})`
report(
  'assistant-priority',
  [
    `${FREE_SENDS} Free sends saturate a model of ${CAPACITY} answers at once`,
    'without lanes',
    `with lanes (${CAPACITY}, ${RESERVED} kept for priority)`,
  ],
  [
    [
      'Pro first token, idle model: median (max)',
      spread(rounds.without.idle),
      spread(rounds.with.idle),
    ],
    [
      `Pro first token while saturated: median (max) of ${PRO_SENDS}`,
      spread(rounds.without.saturated),
      spread(rounds.with.saturated),
    ],
    [
      'Free first token during the burst: median; p95',
      `${ms(median(rounds.without.free))}; ${ms(percentile(rounds.without.free, 95))}`,
      `${ms(median(rounds.with.free))}; ${ms(percentile(rounds.with.free, 95))}`,
    ],
    ['answers that failed', String(rounds.without.errors), String(rounds.with.errors)],
  ],
  rounds,
)

await Promise.all([bffs.without.close(), bffs.with.close()])
await Promise.all([openai.close(), supabase.close()])
await sql.close()
