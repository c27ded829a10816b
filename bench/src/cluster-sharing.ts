/**
 * Part 3 of the cluster bench (cluster.ts), the cost of sharing (docs/decisions/019): on the
 * cluster's PostgreSQL, one BFF counting its limits there and one counting them in memory
 * (`SHARED_LIMITS=false`), in a process of their own (cluster-sharing-servers.ts), in turn:
 * `GET /api/me` against a bare Hono route, and a chat send's time to first token against the
 * OpenAI stand-in asked directly.
 */
import type { ChildProcess } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import path from 'node:path'
import type { SharingTargets } from './cluster-sharing-servers.ts'
import { load } from './cluster-throughput.ts'
import type { Load } from './cluster-throughput.ts'
import { median, percentile, repoRoot, report, spawnBench, sseEvents } from './lib.ts'

/** The cost of sharing: rounds of GET /api/me (each path `sharingSeconds`), first-token sends. */
const sharingRounds = Number(process.env.BENCH_SHARING_ROUNDS ?? 3)
const sharingSeconds = Number(process.env.BENCH_SHARING_SECONDS ?? 5)
const ttftTriples = Number(process.env.BENCH_TTFT_PAIRS ?? 150)
/** The answers of the first-token sends: short, so the first token is what is measured. */
const SHARING_ANSWER_TOKENS = 16

/** A chat send's answer as the load sees it. */
interface FirstToken {
  /** ms from sending to the first text of the answer; null when none came. */
  ms: number | null
  ok: boolean
  failure?: string
}

/**
 * The sends' HTTP client: node:http on a keep-alive agent (global fetch costs this process about
 * three times the CPU per request, on the cores the servers measured use), both paths alike.
 */
const sendAgent = new Agent({ keepAlive: true })

/** POSTs `body` and reads the SSE answer until it ends; `isToken` picks the first text's event. */
function firstToken(
  url: string,
  headers: Record<string, string>,
  body: string,
  isToken: (event: string, data: string) => boolean,
): Promise<FirstToken> {
  const started = performance.now()
  return new Promise((resolve) => {
    const request = httpRequest(
      url,
      {
        agent: sendAgent,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.setEncoding('utf8')
        let ms: number | null = null
        let failure: string | undefined =
          response.statusCode === 200 ? undefined : `HTTP ${response.statusCode}`
        response.on(
          'data',
          sseEvents((event, data) => {
            if (ms === null && isToken(event, data)) ms = performance.now() - started
            if (event === 'error') failure = data
          }),
        )
        response.on('end', () =>
          resolve({
            ms,
            ok: failure === undefined && ms !== null,
            ...(failure ? { failure } : {}),
          }),
        )
        response.on('error', (error) => resolve({ ms: null, ok: false, failure: String(error) }))
      },
    )
    request.on('error', (error) => resolve({ ms: null, ok: false, failure: String(error) }))
    request.end(body)
  })
}

/**
 * The cost of sharing (docs/decisions/019): on one BFF process each, the limits counted in
 * PostgreSQL (the cluster's server) and in memory (`SHARED_LIMITS=false`), measured in turn:
 * `GET /api/me` with autocannon against a bare Hono route (the `api-me` bench's reference), and a
 * chat send's time to first token against the same completion asked of the OpenAI stand-in
 * directly (the `assistant` bench's reference; the stand-in streams as fast as it can, so only
 * the path is measured). The order rotates every round.
 */
export async function sharing(databaseUrl: string, dataDir: string): Promise<void> {
  // As fast as the connection takes tokens (as in the assistant bench): only the path is measured.
  const openai = spawnBench('emulators/src/openai/node.ts', [], ['ignore', 'pipe', 'inherit'], {
    OPENAI_EMULATOR_TOKENS_PER_SECOND: '1000000',
  })
  const log = openSync(path.join(repoRoot, dataDir, 'sharing.log'), 'w')
  let servers: ChildProcess | undefined
  try {
    openai.stdout!.setEncoding('utf8')
    const openaiUrl = await new Promise<string>((resolve, reject) => {
      let text = ''
      openai.stdout!.on('data', (chunk: string) => {
        text += chunk
        for (const line of text.split('\n'))
          if (line.startsWith('{"')) {
            const url = (JSON.parse(line) as { url?: string }).url
            if (url !== undefined) resolve(url)
          }
      })
      openai.once('exit', (code) => reject(new Error(`the OpenAI stand-in exited (${code})`)))
    })
    openai.stdout!.resume()
    servers = spawnBench(
      'bench/src/cluster-sharing-servers.ts',
      [databaseUrl, openaiUrl, String(SHARING_ANSWER_TOKENS)],
      ['ignore', log, 'inherit', 'ipc'],
    )
    const child = servers
    const targets = await new Promise<SharingTargets>((resolve, reject) => {
      child.on('message', (message: { ready?: SharingTargets }) => {
        if (message.ready !== undefined) resolve(message.ready)
      })
      child.once('exit', (code) => reject(new Error(`the sharing servers exited (${code})`)))
    })

    // GET /api/me: bare, shared, in-process, in rotating order.
    const paths = ['bare', 'shared', 'local'] as const
    const urlOf = { bare: targets.bareUrl, shared: targets.sharedUrl, local: targets.localUrl }
    for (const name of paths) await load(`${urlOf[name]}/api/me`, targets.cookie, 2)
    const me: Record<(typeof paths)[number], Load[]> = { bare: [], shared: [], local: [] }
    for (let round = 0; round < sharingRounds; round += 1) {
      for (let step = 0; step < paths.length; step += 1) {
        const name = paths[(round + step) % paths.length]!
        me[name].push(await load(`${urlOf[name]}/api/me`, targets.cookie, sharingSeconds))
      }
    }
    const ratios = (name: 'shared' | 'local') =>
      me[name].map((result, round) => result.rps / me.bare[round]!.rps)

    // Time to first token: direct, shared, in-process, in rotating order.
    const headers = (origin: string) => ({
      origin,
      'x-tessera-csrf': '1',
      'content-type': 'application/json',
      cookie: targets.cookie,
    })
    const conversation = async (bffUrl: string): Promise<string> => {
      const response = await fetch(`${bffUrl}/api/assistant/conversations`, {
        method: 'POST',
        headers: headers(bffUrl),
        body: '{}',
      })
      if (response.status !== 201) throw new Error(`creating a conversation: ${response.status}`)
      return ((await response.json()) as { conversation: { id: string } }).conversation.id
    }
    const warmUp = 10
    const ttft = { direct: [] as number[], shared: [] as number[], local: [] as number[] }
    const failures: string[] = []
    for (let index = 0; index < ttftTriples + warmUp; index += 1) {
      const question = `Question ${index}: how do tides work?`
      const [sharedId, localId] = [
        await conversation(targets.sharedUrl),
        await conversation(targets.localUrl),
      ]
      const send = (bffUrl: string, id: string) =>
        firstToken(
          `${bffUrl}/api/assistant/conversations/${id}/messages`,
          headers(bffUrl),
          JSON.stringify({ content: question }),
          (event) => event === 'delta',
        )
      const sends = [
        () =>
          firstToken(
            `${openaiUrl}/v1/chat/completions`,
            { authorization: 'Bearer sk-tessera-local', 'content-type': 'application/json' },
            JSON.stringify({
              model: 'gpt-4o-mini',
              messages: [
                {
                  role: 'system',
                  content:
                    'You are the Tessera assistant. Answer clearly and concisely, in Markdown when it helps.',
                },
                { role: 'user', content: question },
              ],
              stream: true,
              stream_options: { include_usage: true },
              max_completion_tokens: SHARING_ANSWER_TOKENS,
            }),
            (_event, data) => data.includes('"content":"') && !data.includes('"content":""'),
          ),
        () => send(targets.sharedUrl, sharedId),
        () => send(targets.localUrl, localId),
      ]
      const results: FirstToken[] = []
      for (let step = 0; step < sends.length; step += 1) {
        const which = (index + step) % sends.length
        results[which] = await sends[which]!()
      }
      const [direct, viaShared, viaLocal] = results
      if (!direct?.ok || !viaShared?.ok || !viaLocal?.ok) {
        failures.push(direct?.failure ?? viaShared?.failure ?? viaLocal?.failure ?? '?')
        continue
      }
      if (index < warmUp) continue
      ttft.direct.push(direct.ms!)
      ttft.shared.push(viaShared.ms!)
      ttft.local.push(viaLocal.ms!)
    }
    const overhead = (name: 'shared' | 'local') =>
      ttft[name].map((ms, index) => ms - ttft.direct[index]!)
    const sharedOverhead = overhead('shared')
    const localOverhead = overhead('local')
    const difference = ttft.shared.map((ms, index) => ms - ttft.local[index]!)
    const f = (value: number, digits = 2) => value.toFixed(digits)
    report(
      'cluster-sharing',
      ['one BFF, limits counted', 'in PostgreSQL (shared)', 'in the process', 'goal'],
      [
        [
          `GET /api/me ÷ bare Hono, median of ${sharingRounds} × ${sharingSeconds} s`,
          f(median(ratios('shared'))),
          f(median(ratios('local'))),
          '≥ 0.23',
        ],
        [
          'GET /api/me requests/s, median (bare Hono)',
          `${Math.round(median(me.shared.map((result) => result.rps)))} (${Math.round(median(me.bare.map((result) => result.rps)))})`,
          String(Math.round(median(me.local.map((result) => result.rps)))),
          '',
        ],
        [
          `chat time to first token − direct, median (p90), ${ttft.direct.length} sends each`,
          `${f(median(sharedOverhead))} (${f(percentile(sharedOverhead, 90))}) ms`,
          `${f(median(localOverhead))} (${f(percentile(localOverhead, 90))}) ms`,
          '< 5 ms',
        ],
        ['shared − in-process, same question, median', `${f(median(difference))} ms`, '', ''],
        ['sends failed', String(failures.length), '', '0'],
      ],
      { me, ttft, failures, sharingRounds, sharingSeconds },
    )
    if (failures.length > 0) console.log(`  first failure: ${failures[0]}`)
  } finally {
    closeSync(log)
    servers?.disconnect()
    openai.kill()
  }
}
