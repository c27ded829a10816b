/**
 * The assistant's streaming path, in one run:
 *
 * 1. Time to first token: a send through the BFF (`POST /api/assistant/conversations/:id/messages`:
 *    session, moderation, quota hold, storing both messages, the model call, SSE) against the same
 *    chat completion sent straight to the OpenAI stand-in, alternating, at an unlimited token
 *    rate so only the path is measured. These answers are short (16 tokens): at an unlimited rate
 *    a long answer arrives whole in the same millisecond as its first token, and the BFF would be
 *    measured relaying the rest of it, which no model streams that fast. Goal: `overheadGoal`.
 * 2. 200 concurrent answers streaming through the BFF (the stand-in paces each at 40 tokens/s, so
 *    all of them are open at once). Goal: zero errors; the BFF process's peak RSS and CPU.
 *
 * For reference, the same completion through two bare proxies that only forward it and pipe the
 * stream back (`serveBareProxies`, in a process of their own) is timed in the same rotation: one
 * on the BFF's stack (Hono on @hono/node-server, the BFF's HTTP client for the model), one on
 * `node:http` alone. They are the hop every BFF pays, whatever it checks (decision 056).
 *
 * Three processes, as in production: this one (the load), the OpenAI stand-in, and the BFF with
 * its database and the Supabase stand-in (sign-up only). The BFF logs at `info` into
 * `.tessera/bench-assistant-bff.log` (this process does not read its log while it measures) and
 * takes its commands over an IPC channel; it also reports its CPU per send. The database is PGlite in the BFF's
 * process, as in `npm start`; `BENCH_DATABASE_URL` (an empty database on a PostgreSQL server)
 * measures the BFF as it runs in production instead.
 */
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { createInterface } from 'node:readline'
import type { Interface } from 'node:readline'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { Hono } from 'hono'
import { serve as serveHttp } from '@hono/node-server'
import { startBff } from '@tessera/bff/node'
import { createNodeFetch } from '@tessera/bff/platform/node-fetch'
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import { startSupabaseEmulator } from '@tessera/emulators/supabase/node'
import { signInBenchAccount } from './bench-account.ts'
import { benchImageDataUrl, imageRounds, uploadBenchImage } from './assistant-image.ts'
import { median, percentile, repoRoot, report, sseEvents } from './lib.ts'

const HANDSHAKE = 'benchAssistant'
/** The BFF's log of the last run. */
const bffLogFile = path.join(repoRoot, '.tessera/bench-assistant-bff.log')
const SAMPLE = 'benchSample'
const pairs = Number(process.env.BENCH_TTFT_PAIRS ?? 300)
const concurrent = Number(process.env.BENCH_STREAMS ?? 200)
/**
 * Accounts the answers are spread over, each within the free plan's month: one per path of the
 * first-token rounds, the rest for the concurrent answers.
 */
const accounts = 10
/** The concurrent answers start over this long, 100 a second: all open at once, not one burst. */
const rampMs = 2000
const streamTokensPerSecond = 40
/** The stand-in's answers are about 160 tokens; a smaller cap lets more answers fit a free plan. */
const maxAnswerTokens = 256
/** The answers of the first-token rounds: their first token is what is measured. */
const firstTokenAnswerTokens = 16

interface Served {
  /** The first-token rounds' BFF (short answers). */
  bffUrl: string
  /** A second BFF over the same database with moderation off: the BFF's own share of the path. */
  unmoderatedUrl: string
  /** The concurrent answers' BFF: answers of up to `maxAnswerTokens`. */
  concurrentUrl: string
  openaiUrl: string
  cookies: string[]
}

interface ResourceSample {
  rssBytes: number
  peakRssBytes: number
  cpuUserMicros: number
  cpuSystemMicros: number
}

/** CPU time (user and system) the process used between two samples, in ms. */
function cpuMsOf(from: ResourceSample, to: ResourceSample): number {
  return (to.cpuUserMicros + to.cpuSystemMicros - from.cpuUserMicros - from.cpuSystemMicros) / 1000
}

/**
 * Issue 21's goal for the BFF's overhead to the first token: under 2 ms by the median and 5 ms at
 * the 95th percentile on a PostgreSQL server, under 3 ms by the median on PGlite.
 */
function overheadGoal(database: 'PGlite' | 'PostgreSQL', medianMs: number, p95Ms: number): string {
  if (database === 'PGlite') return `< 3 ms median: ${medianMs < 3 ? 'met' : 'missed'}`
  return `< 2 ms median, < 5 ms p95: ${medianMs < 2 && p95Ms < 5 ? 'met' : 'missed'}`
}

/** Starts a Node process with this one's loader flags (tsx); its stdout piped here, or to `log`. */
function spawnTsx(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  log?: number,
): ChildProcess {
  return spawn(process.execPath, [...process.execArgv, file, ...args], {
    env: { ...process.env, ...env },
    stdio: log === undefined ? ['ignore', 'pipe', 'inherit'] : ['ignore', log, 'inherit', 'ipc'],
  })
}

/** The first message of `child` that `match` accepts. */
function messageOf<T>(child: ChildProcess, match: (message: unknown) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      const value = match(message)
      if (value === undefined) return
      child.off('message', onMessage)
      child.off('exit', onExit)
      resolve(value)
    }
    const onExit = (code: number | null) => reject(new Error(`the BFF process exited (${code})`))
    child.on('message', onMessage)
    child.once('exit', onExit)
  })
}

/** The first stdout line of `child` that `match` accepts, parsed. */
function lineOf<T>(lines: Interface, match: (line: string) => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const onLine = (line: string) => {
      const value = match(line)
      if (value === undefined) return
      lines.off('line', onLine)
      resolve(value)
    }
    lines.on('line', onLine)
  })
}

// ---------------------------------------------------------------------------------------------
// The BFF process.

async function serve(): Promise<void> {
  const openaiUrl = process.env.BENCH_OPENAI_URL ?? ''
  const databaseUrl = process.env.BENCH_DATABASE_URL
  const dataDir = path.join(repoRoot, '.tessera/bench-assistant')
  rmSync(dataDir, { recursive: true, force: true })
  const sql = await openDatabase(
    databaseUrl === undefined ? { dataDir: path.join(dataDir, 'pglite') } : { url: databaseUrl },
  )
  await prepareDatabase(sql, { bootstrap: true })
  const supabase = await startSupabaseEmulator({
    db: sql,
    port: 0,
    mailboxPort: 0,
    siteUrl: 'http://localhost',
  })
  const bffEnv = {
    PORT: '0',
    // As deployed: the access log is part of every request's cost.
    LOG_LEVEL: 'info',
    PUBLIC_ORIGIN: 'http://localhost',
    SUPABASE_URL: supabase.url,
    SUPABASE_ANON_KEY: supabase.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: supabase.serviceRoleKey,
    OPENAI_BASE_URL: `${openaiUrl}/v1`,
    OPENAI_API_KEY: 'sk-tessera-local',
    // One load generator sends for a few accounts: the per-person limits are not measured here.
    ASSISTANT_RATE_LIMIT: '1000000',
    ASSISTANT_MAX_ANSWER_TOKENS: String(firstTokenAnswerTokens),
    EMAIL_SEND_RATE_LIMIT: '1000',
  }
  const bff = await startBff({ sql, env: bffEnv })
  const unmoderated = await startBff({ sql, env: { ...bffEnv, ASSISTANT_MODERATION: 'false' } })
  const concurrentBff = await startBff({
    sql,
    env: { ...bffEnv, ASSISTANT_MAX_ANSWER_TOKENS: String(maxAnswerTokens) },
  })
  const cookies: string[] = []
  for (let index = 0; index < accounts; index += 1) {
    const account = await signInBenchAccount({ appUrl: bff.url, mailboxUrl: supabase.mailboxUrl })
    if (account === null) throw new Error('the BFF offers no sign-up')
    cookies.push(`${account.name}=${account.value}`)
  }

  // Peak memory is watched only once asked to (for the concurrent answers): during the
  // first-token rounds the timer would take this thread's time from the sends measured.
  let peak = 0
  let sampler: NodeJS.Timeout | undefined
  const served: Served = {
    bffUrl: bff.url,
    unmoderatedUrl: unmoderated.url,
    concurrentUrl: concurrentBff.url,
    openaiUrl,
    cookies,
  }
  // Commands and answers go over the IPC channel; stdout is the BFF's log, to a file.
  process.send!({ [HANDSHAKE]: served })
  process.on('message', (message) => {
    if (message !== 'sample' && message !== 'watch') return
    if (message === 'watch')
      sampler ??= setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss())
      }, 10)
    const rss = process.memoryUsage.rss()
    const cpu = process.cpuUsage()
    const sample: ResourceSample = {
      rssBytes: rss,
      peakRssBytes: Math.max(peak, rss),
      cpuUserMicros: cpu.user,
      cpuSystemMicros: cpu.system,
    }
    peak = rss
    process.send!({ [SAMPLE]: sample })
  })
  process.once('disconnect', () => {
    clearInterval(sampler)
    void (async () => {
      await bff.close()
      await unmoderated.close()
      await concurrentBff.close()
      await supabase.close()
      await sql.close()
      process.exit(0)
    })()
  })
}

/** Listens on a free loopback port; the server's url. */
async function listening(server: http.Server): Promise<string> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/**
 * Two proxies that only forward a chat completion to the stand-in and its bytes back as they
 * come. Every BFF pays at least this hop (a request in, one out, a stream relayed); what the BFF
 * spends above it is its checks, its database and its own events. `hono` is built as the BFF is
 * (a Hono route on @hono/node-server, the model's requests through node-fetch.ts); `raw` is
 * `node:http` piping one socket into another, the least a Node process can do.
 */
async function serveBareProxies(): Promise<void> {
  const openaiUrl = process.env.BENCH_OPENAI_URL ?? ''
  const upstreamFetch = createNodeFetch()
  const app = new Hono().post('/v1/chat/completions', async (c) => {
    const upstream = await upstreamFetch(`${openaiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: c.req.header('authorization') ?? '',
        'content-type': 'application/json',
      },
      body: await c.req.text(),
    })
    return new Response(upstream.body, {
      status: upstream.status,
      headers: { 'content-type': upstream.headers.get('content-type') ?? 'text/event-stream' },
    })
  })
  const hono = serveHttp({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as http.Server
  const upstream = new URL(openaiUrl)
  const agent = new http.Agent({ keepAlive: true })
  const raw = http
    .createServer((request, response) => {
      const forwarded = http.request(
        {
          agent,
          host: upstream.hostname,
          port: upstream.port,
          path: '/v1/chat/completions',
          method: 'POST',
          headers: {
            authorization: request.headers.authorization ?? '',
            'content-type': 'application/json',
            'content-length': request.headers['content-length'] ?? '0',
          },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, {
            'content-type': answer.headers['content-type'] ?? 'text/event-stream',
          })
          answer.pipe(response)
        },
      )
      forwarded.on('error', () => response.destroy())
      request.pipe(forwarded)
    })
    .listen(0, '127.0.0.1')
  const urls: ProxyUrls = { hono: await listening(hono), raw: await listening(raw) }
  // Its one line on stdout: where they listen. The load's process ends it (SIGTERM).
  console.log(JSON.stringify({ url: urls }))
}

interface ProxyUrls {
  hono: string
  raw: string
}

// ---------------------------------------------------------------------------------------------
// The load.

interface StreamResult {
  /** ms from sending to the first text of the answer; null when none came. */
  firstTokenMs: number | null
  totalMs: number
  ok: boolean
  failure?: string
}

/**
 * The load's HTTP client for the streams measured: node:http on a keep-alive Agent. Global fetch
 * (undici behind WHATWG streams) costs this process about three times the CPU per request, and
 * it shares the machine's two cores with the servers measured; both paths use this client.
 */
const agent = new http.Agent({ keepAlive: true })

/**
 * POSTs `body` and reads the SSE answer; `isToken` picks the event that carries the answer's first
 * text, `isEnd` the one that says it finished well.
 */
function streamPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  isToken: (event: string, data: string) => boolean,
  isEnd: (event: string, data: string) => boolean,
): Promise<StreamResult> {
  const started = performance.now()
  return new Promise((resolve) => {
    const failed = (failure: string) =>
      resolve({ firstTokenMs: null, totalMs: performance.now() - started, ok: false, failure })
    const request = http.request(
      url,
      {
        agent,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.setEncoding('utf8')
        if (response.statusCode !== 200) {
          let text = ''
          response.on('data', (chunk: string) => (text += chunk))
          response.on('end', () => failed(`HTTP ${response.statusCode} ${text}`))
          return
        }
        let firstTokenMs: number | null = null
        let ended = false
        let failure: string | undefined
        response.on(
          'data',
          sseEvents((event, data) => {
            if (firstTokenMs === null && isToken(event, data))
              firstTokenMs = performance.now() - started
            if (isEnd(event, data)) ended = true
            if (event === 'error') failure = data
          }),
        )
        response.on('end', () =>
          resolve({
            firstTokenMs,
            totalMs: performance.now() - started,
            ok: ended && failure === undefined,
            ...(failure === undefined ? {} : { failure }),
          }),
        )
        response.on('error', (error) => failed(String(error)))
      },
    )
    request.on('error', (error) => failed(String(error)))
    request.end(body)
  })
}

/** The body the BFF sends for a question in a new conversation (its system prompt included). */
function directBody(question: string, imageDataUrl?: string) {
  return JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [
      {
        role: 'system',
        content:
          'You are the Tessera assistant. Answer clearly and concisely, in Markdown when it helps.',
      },
      imageDataUrl === undefined
        ? { role: 'user', content: question }
        : {
            role: 'user',
            content: [
              { type: 'text', text: question },
              { type: 'image_url', image_url: { url: imageDataUrl, detail: 'low' } },
            ],
          },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_completion_tokens: firstTokenAnswerTokens,
  })
}

function direct(openaiUrl: string, question: string, image?: string): Promise<StreamResult> {
  return streamPost(
    `${openaiUrl}/v1/chat/completions`,
    { authorization: 'Bearer sk-tessera-local', 'content-type': 'application/json' },
    directBody(question, image),
    (_event, data) => data.includes('"content":"') && !data.includes('"content":""'),
    (_event, data) => data === '[DONE]',
  )
}

function bffHeaders(bffUrl: string, cookie: string) {
  return {
    origin: bffUrl,
    'x-tessera-csrf': '1',
    'content-type': 'application/json',
    cookie,
  }
}

async function newConversation(bffUrl: string, cookie: string): Promise<string> {
  const response = await fetch(`${bffUrl}/api/assistant/conversations`, {
    method: 'POST',
    headers: bffHeaders(bffUrl, cookie),
    body: '{}',
  })
  if (response.status !== 201) throw new Error(`creating a conversation: ${response.status}`)
  return ((await response.json()) as { conversation: { id: string } }).conversation.id
}

function throughBff(
  bffUrl: string,
  cookie: string,
  conversationId: string,
  question: string,
  attachmentIds?: string[],
): Promise<StreamResult> {
  return streamPost(
    `${bffUrl}/api/assistant/conversations/${conversationId}/messages`,
    bffHeaders(bffUrl, cookie),
    JSON.stringify({ content: question, attachmentIds }),
    (event) => event === 'delta',
    (event) => event === 'done',
  )
}

async function main(): Promise<void> {
  const openai = spawnTsx(
    fileURLToPath(new URL('../../emulators/src/openai/node.ts', import.meta.url)),
    [],
    {
      OPENAI_EMULATOR_PORT: '0',
      // As fast as the connection takes tokens: time to first token is then the path alone.
      OPENAI_EMULATOR_TOKENS_PER_SECOND: '1000000',
      LOG_LEVEL: 'info',
    },
  )
  // Its log lines are JSON; the one saying it is ready carries the url (as does the proxy's).
  const urlOf = <T = string>(child: ChildProcess) =>
    lineOf(createInterface({ input: child.stdout! }), (line) =>
      line.startsWith('{"') ? (JSON.parse(line) as { url?: T }).url : undefined,
    )
  const openaiUrl = await urlOf(openai)
  const proxy = spawnTsx(fileURLToPath(import.meta.url), ['--proxies'], {
    BENCH_OPENAI_URL: openaiUrl,
  })
  const proxyUrls = await urlOf<ProxyUrls>(proxy)
  // The BFF logs at `info` as deployed, into a file: this process (the one measuring) is not
  // also the one reading its log.
  mkdirSync(path.dirname(bffLogFile), { recursive: true })
  const log = openSync(bffLogFile, 'w')
  const bff = spawnTsx(
    fileURLToPath(import.meta.url),
    ['--serve'],
    { BENCH_OPENAI_URL: openaiUrl },
    log,
  )
  closeSync(log)
  const served = await messageOf(bff, (message) =>
    typeof message === 'object' && message !== null && HANDSHAKE in message
      ? (message as Record<string, Served>)[HANDSHAKE]
      : undefined,
  )
  /** The BFF process's memory and CPU so far; `watch` also starts watching its peak memory. */
  const sample = async (command: 'sample' | 'watch' = 'sample'): Promise<ResourceSample> => {
    const next = messageOf(bff, (message) =>
      typeof message === 'object' && message !== null && SAMPLE in message
        ? (message as Record<string, ResourceSample>)[SAMPLE]
        : undefined,
    )
    bff.send(command)
    return next
  }

  try {
    const [ttftCookie, unmoderatedCookie, ...streamCookies] = served.cookies
    if (ttftCookie === undefined || unmoderatedCookie === undefined)
      throw new Error('no benchmark account')

    // 1. Time to first token, the five paths in turn (rotating which goes first); the first
    // rounds warm everything up.
    const warmUp = 10
    const rounds = pairs + warmUp
    const conversations = await Promise.all(
      Array.from({ length: rounds }, async () => ({
        moderated: await newConversation(served.bffUrl, ttftCookie),
        unmoderated: await newConversation(served.unmoderatedUrl, unmoderatedCookie),
      })),
    )
    const directMs: number[] = []
    const bffMs: number[] = []
    const unmoderatedMs: number[] = []
    const proxyMs: number[] = []
    const rawProxyMs: number[] = []
    let ttftErrors = 0
    const roundsStart = await sample()
    for (const [index, ids] of conversations.entries()) {
      const question = `Question ${index}: how do tides work?`
      const paths = [
        () => direct(served.openaiUrl, question),
        () => throughBff(served.bffUrl, ttftCookie, ids.moderated, question),
        () => throughBff(served.unmoderatedUrl, unmoderatedCookie, ids.unmoderated, question),
        () => direct(proxyUrls.hono, question),
        () => direct(proxyUrls.raw, question),
      ]
      const results: StreamResult[] = []
      for (let step = 0; step < paths.length; step += 1) {
        const which = (index + step) % paths.length
        results[which] = await paths[which]!()
      }
      const [straight, through, bare, proxied, piped] = results
      const failed = results.find((result) => !result.ok)
      if (failed !== undefined) {
        ttftErrors += 1
        console.error(failed.failure)
        continue
      }
      if (index < warmUp) continue
      if (
        straight?.firstTokenMs == null ||
        through?.firstTokenMs == null ||
        bare?.firstTokenMs == null ||
        proxied?.firstTokenMs == null ||
        piped?.firstTokenMs == null
      )
        continue
      directMs.push(straight.firstTokenMs)
      bffMs.push(through.firstTokenMs)
      unmoderatedMs.push(bare.firstTokenMs)
      proxyMs.push(proxied.firstTokenMs)
      rawProxyMs.push(piped.firstTokenMs)
    }
    const roundsEnd = await sample()
    // The BFF process's CPU per send, whole sends (through `done`), both BFFs of the rounds.
    const cpuPerSendMs = (cpuMsOf(roundsStart, roundsEnd) / (2 * rounds)).toFixed(2)
    // Each path's time over the straight request of the same round.
    const overOf = (times: number[]) => times.map((ms, index) => ms - (directMs[index] ?? 0))
    const overheads = overOf(bffMs)
    const ownOverheads = overOf(unmoderatedMs)
    const proxyOverheads = overOf(proxyMs)
    const rawProxyOverheads = overOf(rawProxyMs)

    // 1b. The same with an image attached (assistant-image.ts), as the second account on the
    // first BFF (moderation on): its month has room for these sends besides its own rounds.
    const image = await imageRounds({
      pairs: Number(process.env.BENCH_IMAGE_PAIRS ?? 100),
      warmUp,
      upload: () => uploadBenchImage(served.bffUrl, unmoderatedCookie),
      newConversation: () => newConversation(served.bffUrl, unmoderatedCookie),
      direct: (question) => direct(served.openaiUrl, question, benchImageDataUrl),
      through: (id, question, attachmentId) =>
        throughBff(served.bffUrl, unmoderatedCookie, id, question, [attachmentId]),
    })

    // 2. Concurrent answers, paced by the stand-in.
    const armed = await fetch(`${served.openaiUrl}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'slow',
        tokensPerSecond: streamTokensPerSecond,
        count: concurrent,
        match: 'Concurrent',
      }),
    })
    if (!armed.ok) throw new Error(`arming the slow fault: ${armed.status}`)
    const targets = await Promise.all(
      Array.from({ length: concurrent }, async (_, index) => {
        const cookie = streamCookies[index % streamCookies.length]!
        return { cookie, id: await newConversation(served.concurrentUrl, cookie) }
      }),
    )
    const before = await sample('watch')
    const started = performance.now()
    let open = 0
    let peakOpen = 0
    const results = await Promise.all(
      targets.map(async ({ cookie, id }, index): Promise<StreamResult> => {
        await new Promise((resolve) => setTimeout(resolve, (index * rampMs) / concurrent))
        open += 1
        peakOpen = Math.max(peakOpen, open)
        const question = `Concurrent question ${index}: why is the sky blue?`
        try {
          return await throughBff(served.concurrentUrl, cookie, id, question)
        } catch (error) {
          return {
            firstTokenMs: null,
            totalMs: performance.now() - started,
            ok: false,
            failure: String(error),
          }
        } finally {
          open -= 1
        }
      }),
    )
    const wallMs = performance.now() - started
    const after = await sample()
    const failures = results.filter((result) => !result.ok)
    for (const failure of failures.slice(0, 5)) console.error(failure.failure)
    const cpuMs = cpuMsOf(before, after)
    const firstTokens = results.flatMap((result) =>
      result.firstTokenMs === null ? [] : [result.firstTokenMs],
    )
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`
    const ms = (value: number) => `${value.toFixed(1)} ms`

    const database = process.env.BENCH_DATABASE_URL === undefined ? 'PGlite' : 'PostgreSQL'
    report(
      process.env.BENCH_DATABASE_URL === undefined ? 'assistant' : 'assistant-postgres',
      [`measure (database: ${database})`, 'result', 'goal'],
      [
        [
          `time to first token, straight to the stand-in (median of ${directMs.length})`,
          ms(median(directMs)),
          '',
        ],
        ['time to first token, through the BFF (median)', ms(median(bffMs)), ''],
        [
          'BFF overhead (median of the paired differences; p95)',
          `${ms(median(overheads))}; ${ms(percentile(overheads, 95))}`,
          overheadGoal(database, median(overheads), percentile(overheads, 95)),
        ],
        [
          'of which the BFF itself (moderation off: median; p95)',
          `${ms(median(ownOverheads))}; ${ms(percentile(ownOverheads, 95))}`,
          '',
        ],
        [
          'for reference, a proxy that only forwards, on Hono (overhead median; p95; BFF ÷ it)',
          `${ms(median(proxyOverheads))}; ${ms(percentile(proxyOverheads, 95))}; ${(median(overheads) / median(proxyOverheads)).toFixed(1)}×`,
          '',
        ],
        [
          'for reference, a proxy that only forwards, node:http piping (overhead median; p95)',
          `${ms(median(rawProxyOverheads))}; ${ms(percentile(rawProxyOverheads, 95))}`,
          '',
        ],
        [
          `with an image attached (512×384 PNG): BFF overhead (median of ${image.overheads.length}; p95)`,
          `${ms(median(image.overheads))}; ${ms(percentile(image.overheads, 95))} (straight: ${ms(median(image.directMs))})`,
          '',
        ],
        [
          'BFF process CPU per send in those rounds (the whole send, to `done`)',
          `${cpuPerSendMs} ms`,
          '',
        ],
        [
          `${concurrent} answers through the BFF, started over ${rampMs / 1000} s (${streamTokensPerSecond} tokens/s each)`,
          `${peakOpen} open at once; ${results.length - failures.length} complete, ${failures.length} errors, ${(wallMs / 1000).toFixed(1)} s`,
          failures.length === 0 ? 'zero errors: met' : 'zero errors: missed',
        ],
        [
          'time to first token under that load (median; p95)',
          `${ms(median(firstTokens))}; ${ms(percentile(firstTokens, 95))}`,
          '',
        ],
        [
          'BFF process RSS: idle before → peak during',
          `${mb(before.rssBytes)} → ${mb(after.peakRssBytes)}`,
          '',
        ],
        [
          'BFF process CPU during the concurrent answers',
          `${(cpuMs / 1000).toFixed(1)} s (${((cpuMs / wallMs) * 100).toFixed(0)} % of one core)`,
          '',
        ],
      ],
      {
        pairs: directMs.length,
        ttftErrors,
        directMs,
        bffMs,
        unmoderatedMs,
        proxyMs,
        rawProxyMs,
        image,
        concurrent,
        streamTokensPerSecond,
        wallMs,
        peakOpen,
        rampMs,
        failures: failures.map((failure) => failure.failure),
        before,
        after,
        cpuMs,
        cpuPerSendMs: Number(cpuPerSendMs),
      },
    )
    if (ttftErrors > 0 || image.errors > 0) process.exitCode = 1
  } finally {
    agent.destroy()
    if (bff.exitCode === null) {
      const exited = new Promise((resolve) => bff.once('exit', resolve))
      if (bff.connected) bff.disconnect()
      await exited
    }
    openai.kill('SIGTERM')
    proxy.kill('SIGTERM')
  }
}

if (process.argv.includes('--serve')) await serve()
else if (process.argv.includes('--proxies')) await serveBareProxies()
else await main()
