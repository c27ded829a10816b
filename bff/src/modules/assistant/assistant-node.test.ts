import { connect } from 'node:net'
import { messageListSchema } from '@tessera/contracts'
import { startOpenAiEmulator } from '@tessera/emulators/openai/node'
import type { RunningOpenAiEmulator } from '@tessera/emulators/openai/node'
import type { Sql } from '@tessera/db/sql'
import { startTestSupabase, uniqueEmail } from '@tessera/emulators/supabase/test-support'
import type { TestSupabase } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createBffTestDatabase,
  databaseSetupTimeout,
  testPassword,
} from '../../testing/identity.ts'
import { startBff } from '../../bin/node.ts'
import type { RunningBff } from '../../bin/node.ts'
import { sseReader, waitFor } from '../../testing/app.ts'

/**
 * The assistant over real sockets, as a browser meets it: the answer streams through every
 * middleware as it is written, and Stop stops the model.
 */
let sql: Sql
let supabase: TestSupabase
let openai: RunningOpenAiEmulator
let bff: RunningBff
let headers: Record<string, string>

beforeAll(async () => {
  sql = await createBffTestDatabase()
  supabase = await startTestSupabase({ db: sql, emailRateLimitSeconds: 0 })
  openai = await startOpenAiEmulator({ port: 0, tokensPerSecond: 60 })
  bff = await startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      SUPABASE_URL: supabase.url,
      PUBLIC_ORIGIN: 'http://app.tessera.test',
      OPENAI_BASE_URL: `${openai.url}/v1`,
    },
    sql,
  })
  const csrf = { origin: bff.url, 'x-tessera-csrf': '1', 'content-type': 'application/json' }
  const email = uniqueEmail('node-chat')
  await fetch(`${bff.url}/api/auth/sign-up`, {
    method: 'POST',
    headers: csrf,
    body: JSON.stringify({ email, password: testPassword }),
  })
  const mail = await supabase.waitForMail(email)
  const confirmed = await fetch(`${bff.url}/api/auth/confirm`, {
    method: 'POST',
    headers: csrf,
    body: JSON.stringify({ tokenHash: mail.token_hash, type: 'signup' }),
  })
  headers = { ...csrf, cookie: (confirmed.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '' }
}, databaseSetupTimeout)

afterAll(async () => {
  await bff.close()
  await openai.close()
  await supabase.stop()
  await sql.close()
})

async function newConversation(): Promise<string> {
  const response = await fetch(`${bff.url}/api/assistant/conversations`, {
    method: 'POST',
    headers,
    body: '{}',
  })
  return ((await response.json()) as { conversation: { id: string } }).conversation.id
}

const send = (id: string, content: string, signal?: AbortSignal) =>
  fetch(`${bff.url}/api/assistant/conversations/${id}/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ content }),
    ...(signal === undefined ? {} : { signal }),
  })

describe('the assistant over HTTP', () => {
  it('delivers each token as it comes, not when the answer ends', async () => {
    const id = await newConversation()
    const response = await send(id, 'Stream this slowly, please.')
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const reader = sseReader(response)
    const started = Date.now()
    await reader.next((frame) => frame.event === 'delta')
    const firstDeltaMs = Date.now() - started
    await reader.closed(30_000)
    const totalMs = Date.now() - started
    // At 60 tokens a second the answer takes seconds; its first token must not wait for it.
    expect(firstDeltaMs).toBeLessThan(totalMs / 4)
    expect(reader.frames.at(-1)?.event).toBe('done')
  }, 30_000)

  it('sends the first token of a burst at once, and the rest of the burst in a few events', async () => {
    const id = await newConversation()
    const content = 'All of it at once, please.'
    openai.control.armFault({ type: 'slow', tokensPerSecond: 1_000_000, match: content })
    const reader = sseReader(await send(id, content))
    await reader.closed(30_000)
    const deltas = reader.frames.filter((frame) => frame.event === 'delta')
    const request = openai.control
      .requests()
      .find((entry) => entry.path === '/v1/chat/completions' && entry.lastUserMessage === content)
    const tokens = request?.completionTokens ?? 0
    expect(tokens).toBeGreaterThan(20)
    // Not an event (and a write) per token: the chunks of one read go out together.
    expect(deltas.length).toBeGreaterThanOrEqual(2)
    expect(deltas.length).toBeLessThan(tokens / 4)
  }, 30_000)

  it('opens the stream with the send’s messages in the same write as the first token', async () => {
    const id = await newConversation()
    const content = 'One write for the opening and the first token.'
    openai.control.armFault({ type: 'slow', tokensPerSecond: 1000, match: content })
    const body = JSON.stringify({ content })
    const url = new URL(bff.url)
    // Raw bytes, a read at a time: an HTTP client would hand over each chunk of the body apart.
    const socket = connect(Number(url.port), url.hostname)
    const reads: string[] = []
    const done = new Promise<void>((resolve) => {
      socket.on('data', (bytes: Buffer) => {
        reads.push(bytes.toString('utf8'))
        if (reads.join('').includes('event: done')) resolve()
      })
    })
    socket.write(
      [
        `POST /api/assistant/conversations/${id}/messages HTTP/1.1`,
        `host: ${url.host}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        `content-length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n'),
    )
    await done
    socket.destroy()
    expect(reads.join('')).toMatch(/^HTTP\/1\.1 200 /)
    const opening = reads.find((read) => read.includes('event: message'))
    expect(opening).toBeDefined()
    expect(opening).toContain('event: delta')
  }, 30_000)

  it('stops the model and keeps the partial answer when the browser presses Stop', async () => {
    const id = await newConversation()
    const content = 'A long answer I will not wait for.'
    const stop = new AbortController()
    const reader = sseReader(await send(id, content, stop.signal))
    await reader.next(() => reader.frames.filter((frame) => frame.event === 'delta').length >= 2)
    // Stop as the page presses it: the request to stop, then the abort of the stream.
    const stopped = await fetch(`${bff.url}/api/assistant/conversations/${id}/stop`, {
      method: 'POST',
      headers,
      body: '{}',
    })
    expect(stopped.status).toBe(202)
    stop.abort()

    const request = await waitFor(() =>
      openai.control
        .requests()
        .find(
          (entry) =>
            entry.path === '/v1/chat/completions' &&
            entry.lastUserMessage === content &&
            entry.outcome !== 'in_progress',
        ),
    )
    expect(request.outcome).toBe('aborted')
    const answer = await waitFor(async () => {
      const list = messageListSchema.parse(
        await (
          await fetch(`${bff.url}/api/assistant/conversations/${id}/messages`, { headers })
        ).json(),
      )
      const last = list.messages.at(-1)
      return last?.status === 'partial' ? last : undefined
    })
    expect(answer.content).not.toBe('')
    expect(answer.usage?.estimated).toBe(true)
  })
})
