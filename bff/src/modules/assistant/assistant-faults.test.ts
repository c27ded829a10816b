import { errorBodySchema, messageListSchema, usageSchema } from '@tessera/contracts'
import type { ChatMessage, ErrorCode, Usage } from '@tessera/contracts'
import type { FaultInput } from '@tessera/emulators/openai/faults'
import type { RequestRecord } from '@tessera/emulators/openai/request-log'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { sseReader, waitFor } from '../../testing/app.ts'
import {
  deltaText,
  eventOrder,
  newConversation,
  parseEvents,
  postMessage,
  sendAndRead,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AnswerEvent, AssistantTestApp } from '../../testing/assistant.ts'

/**
 * The model misbehaving: every fault the stand-in can inject, and people leaving mid-answer.
 * Timeouts are short so the suite is quick (3 s to the first token, 1 s between tokens), yet
 * long enough that a busy machine does not trip them on answers that flow.
 */
let t: AssistantTestApp
let ada: TestBrowser & { id: string }

beforeAll(async () => {
  t = await startAssistantTestApp({
    env: { ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '3000', ASSISTANT_IDLE_TIMEOUT_MS: '1000' },
  })
  ada = await t.user('ada')
}, databaseSetupTimeout)
afterAll(() => t.finish())

const unique = (text: string) => `${text} [${crypto.randomUUID().slice(0, 8)}]`

function arm(fault: FaultInput): void {
  t.openai.control.armFault(fault)
}

/** The stand-in's record of the chat completion for `content`, once it has ended. */
function finishedRequest(content: string): Promise<RequestRecord> {
  return waitFor(
    () =>
      t.openai.control
        .requests()
        .find(
          (entry) =>
            entry.path === '/v1/chat/completions' &&
            entry.lastUserMessage === content &&
            entry.outcome !== 'in_progress',
        ),
    { what: `the model request for "${content}" to end` },
  )
}

async function messagesOf(id: string): Promise<ChatMessage[]> {
  const response = await ada.get(`/api/assistant/conversations/${id}/messages`)
  return messageListSchema.parse(await response.json()).messages
}

async function usage(): Promise<Usage> {
  return usageSchema.parse(await (await ada.get('/api/assistant/usage')).json())
}

/** A conversation with one answered exchange, so a fault can be seen to leave it intact. */
async function conversationWithHistory(): Promise<{ id: string; before: ChatMessage[] }> {
  const id = await newConversation(ada)
  expect(eventOrder(await sendAndRead(ada, id, unique('Warm-up question.')))).toContain('done')
  return { id, before: await messagesOf(id) }
}

function errorOf(events: AnswerEvent[]) {
  const last = events[events.length - 1]
  expect(last?.event).toBe('error')
  return last?.data as {
    code: ErrorCode
    message: string
    requestId: string
    assistant: ChatMessage | null
    retryAfterSeconds?: number
  }
}

/** After a failure: earlier messages untouched, the failed send stored, and the next send works. */
async function expectIntactAndWorking(id: string, before: ChatMessage[], content: string) {
  const after = await messagesOf(id)
  expect(after.slice(0, before.length)).toEqual(before)
  expect(after[before.length]).toMatchObject({ role: 'user', content, status: 'complete' })
  const next = await sendAndRead(ada, id, unique('Does it work again?'))
  expect(eventOrder(next), JSON.stringify(next.at(-1))).toEqual([
    'message',
    'delta*',
    'usage',
    'done',
  ])
  expect((await usage()).reserved).toBe(0)
}

describe('when the model fails', () => {
  const refusals: [string, FaultInput, ErrorCode, number | undefined][] = [
    ['answers 429', { type: 'rate_limit', retryAfterMs: 2500 }, 'model_busy', 3],
    ['answers 500', { type: 'server_error', status: 500 }, 'upstream_unavailable', undefined],
    ['answers 503', { type: 'server_error', status: 503 }, 'upstream_unavailable', undefined],
  ]
  for (const [what, fault, code, retryAfterSeconds] of refusals) {
    it(`ends the stream with ${code} when it ${what}, counting nothing`, async () => {
      const { id, before } = await conversationWithHistory()
      const usedBefore = (await usage()).used
      const content = unique(`Question that meets a fault (${what}).`)
      arm({ ...fault, match: content })
      const events = await sendAndRead(ada, id, content)
      expect(eventOrder(events)).toEqual(['message', 'usage', 'error'])
      const error = errorOf(events)
      expect(error.code).toBe(code)
      expect(error.retryAfterSeconds).toBe(retryAfterSeconds)
      expect(error.assistant).toMatchObject({ status: 'failed', content: '', error: { code } })
      expect(events.find((event) => event.event === 'usage')?.data).toMatchObject({
        totalTokens: 0,
      })
      expect(await usage()).toMatchObject({ used: usedBefore, reserved: 0 })
      expect((await messagesOf(id))[before.length + 1]).toEqual(error.assistant)
      await expectIntactAndWorking(id, before, content)
    })
  }

  it('gives up with upstream_timeout when the first token does not come in time, and stops the request', async () => {
    const { id, before } = await conversationWithHistory()
    const content = unique('A question the model sits on.')
    arm({ type: 'stall', match: content })
    const started = Date.now()
    const events = await sendAndRead(ada, id, content)
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900)
    expect(errorOf(events)).toMatchObject({
      code: 'upstream_timeout',
      assistant: { status: 'failed', error: { code: 'upstream_timeout' } },
    })
    expect((await finishedRequest(content)).outcome).toBe('aborted')
    await expectIntactAndWorking(id, before, content)
  })

  it('keeps what arrived of a cut stream as partial, counts it, and says answer_interrupted', async () => {
    const { id, before } = await conversationWithHistory()
    const usedBefore = (await usage()).used
    const content = unique('A question whose answer is cut.')
    arm({ type: 'cut', afterTokens: 5, match: content })
    const events = await sendAndRead(ada, id, content)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'error'])
    const error = errorOf(events)
    expect(error).toMatchObject({
      code: 'answer_interrupted',
      assistant: {
        status: 'partial',
        content: deltaText(events),
        error: { code: 'answer_interrupted' },
      },
    })
    // The usage report never came: the count is an estimate, and it is counted.
    const counted = events.find((event) => event.event === 'usage')?.data
    expect(counted).toMatchObject({ estimated: true, completionTokens: 5 })
    expect(await usage()).toMatchObject({
      used: usedBefore + Number(counted?.totalTokens),
      reserved: 0,
    })
    expect((await finishedRequest(content)).outcome).toBe('cut')
    await expectIntactAndWorking(id, before, content)
  })

  it('marks a stream cut before any text as failed and counts nothing', async () => {
    const { id, before } = await conversationWithHistory()
    const usedBefore = (await usage()).used
    const content = unique('A question cut at once.')
    arm({ type: 'cut', afterTokens: 0, match: content })
    const events = await sendAndRead(ada, id, content)
    expect(errorOf(events)).toMatchObject({
      code: 'answer_interrupted',
      assistant: { status: 'failed', content: '', usage: null },
    })
    expect((await usage()).used).toBe(usedBefore)
    await expectIntactAndWorking(id, before, content)
  })

  it('streams a slow answer to the end while tokens keep coming', async () => {
    const { id } = await conversationWithHistory()
    const content = unique('A question answered slowly.')
    arm({ type: 'slow', tokensPerSecond: 150, match: content })
    const events = await sendAndRead(ada, id, content)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
    expect((await finishedRequest(content)).outcome).toBe('completed')
  })

  it('gives up with upstream_timeout when a stream goes silent mid-answer, keeping the partial', async () => {
    const { id, before } = await conversationWithHistory()
    const content = unique('A question answered too slowly.')
    // A token every 2 s: the first comes within 3 s, the second not within 1 s of it.
    arm({ type: 'slow', tokensPerSecond: 0.5, match: content })
    const events = await sendAndRead(ada, id, content)
    const error = errorOf(events)
    expect(error).toMatchObject({
      code: 'upstream_timeout',
      assistant: { status: 'partial', content: deltaText(events) },
    })
    expect(deltaText(events)).not.toBe('')
    expect(error.assistant?.usage?.totalTokens).toBeGreaterThan(0)
    expect((await finishedRequest(content)).outcome).toBe('aborted')
    await expectIntactAndWorking(id, before, content)
  })

  it('refuses the send with a JSON error when moderation cannot be reached, storing nothing', async () => {
    const { id, before } = await conversationWithHistory()
    const content = unique('A question moderation never sees.')
    // The SDK tries moderation twice.
    arm({ type: 'server_error', status: 502, endpoint: 'moderations', match: content, count: 2 })
    const response = await postMessage(ada, id, content)
    expect(response.status).toBe(503)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('upstream_unavailable')
    expect(await messagesOf(id)).toEqual(before)
    expect((await usage()).reserved).toBe(0)
  })
})

describe('when the person stops or leaves mid-answer', () => {
  /** Stop as the page presses it: the request to stop (heard on any replica), then the abort. */
  async function pressStop(id: string, stream: AbortController): Promise<void> {
    const response = await ada.send('POST', `/api/assistant/conversations/${id}/stop`, {})
    expect(response.status).toBe(202)
    stream.abort()
  }

  /** Starts a slow answer and reads until `tokens` deltas have arrived. */
  async function startSlowAnswer(
    id: string,
    content: string,
    init: { signal?: AbortSignal } = {},
    tokensPerSecond = 25,
  ) {
    arm({ type: 'slow', tokensPerSecond, match: content })
    const response = await postMessage(ada, id, content, init)
    expect(response.status).toBe(200)
    const reader = sseReader(response)
    await reader.next(
      () => reader.frames.filter((frame) => frame.event === 'delta').length >= 3,
      5000,
    )
    return reader
  }

  /** The stored answer once the BFF has finished with it. */
  async function settledAnswer(id: string): Promise<ChatMessage> {
    return waitFor(async () => {
      const last = (await messagesOf(id)).at(-1)
      return last?.role === 'assistant' && last.status !== 'streaming' ? last : undefined
    })
  }

  it('keeps a send stopped before the first token as an empty partial answer, counting nothing', async () => {
    const id = await newConversation(ada)
    const usedBefore = (await usage()).used
    const content = unique('A question stopped at once.')
    arm({ type: 'stall', match: content })
    const stop = new AbortController()
    const response = await postMessage(ada, id, content, { signal: stop.signal })
    const reader = sseReader(response)
    await reader.next((frame) => frame.event === 'message')
    await pressStop(id, stop)
    await reader.closed()
    const answer = await settledAnswer(id)
    // The stall lasts until the client gives up: the model's request was aborted, unless Stop
    // came before it was even sent.
    await waitFor(
      () =>
        t.openai.control
          .requests()
          .filter(
            (entry) => entry.path === '/v1/chat/completions' && entry.lastUserMessage === content,
          )
          .every((entry) => entry.outcome === 'aborted') || undefined,
      { what: `the model request for "${content}" to be aborted or never sent` },
    )
    expect(answer).toMatchObject({ status: 'partial', content: '', usage: null, error: null })
    await waitFor(async () => ((await usage()).reserved === 0 ? true : undefined))
    expect((await usage()).used).toBe(usedBefore)
  })

  it('finishes an answer whose conversation is deleted meanwhile, counting it and storing nothing more', async () => {
    const id = await newConversation(ada)
    const usedBefore = (await usage()).used
    const content = unique('An answer whose conversation goes away.')
    const reader = await startSlowAnswer(id, content, {}, 100)
    expect((await ada.send('DELETE', `/api/assistant/conversations/${id}`)).status).toBe(204)
    await reader.closed(15_000)
    const events = parseEvents(reader.frames)
    expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
    const counted = Number(events.find((event) => event.event === 'usage')?.data.totalTokens)
    expect(await usage()).toMatchObject({ used: usedBefore + counted, reserved: 0 })
    expect((await ada.get(`/api/assistant/conversations/${id}/messages`)).status).toBe(404)
  })

  it('finishes, stores and counts the whole answer when the page goes away mid-answer (a reload can follow it)', async () => {
    const { id, before } = await conversationWithHistory()
    const usedBefore = (await usage()).used
    const content = unique('A long answer someone reloads during.')
    const reader = await startSlowAnswer(id, content, {}, 60)
    const seen = deltaText(parseEvents(reader.frames.filter((frame) => frame.event === 'delta')))
    await reader.cancel()

    const request = await finishedRequest(content)
    expect(request.outcome).not.toBe('aborted')
    const answer = await settledAnswer(id)
    expect(answer.status).toBe('complete')
    expect(answer.content.startsWith(seen)).toBe(true)
    expect(answer.content).toContain('Written by the Tessera OpenAI stand-in')
    await waitFor(async () => ((await usage()).reserved === 0 ? true : undefined))
    expect((await usage()).used).toBe(usedBefore + (answer.usage?.totalTokens ?? 0))
    await expectIntactAndWorking(id, before, content)
  })

  it('refuses to stop a conversation the caller cannot see, and stops nothing', async () => {
    const response = await ada.send(
      'POST',
      `/api/assistant/conversations/${crypto.randomUUID()}/stop`,
      {},
    )
    expect(response.status).toBe(404)
    const id = await newConversation(ada)
    const extra = await ada.send('POST', `/api/assistant/conversations/${id}/stop`, { now: true })
    expect(extra.status).toBe(422)
    const idle = await ada.send('POST', `/api/assistant/conversations/${id}/stop`, {})
    expect(await idle.json()).toEqual({ streaming: 0 })
  })

  for (const [how, leave] of [
    ['presses Stop (a stop request, then the request is aborted)', 'abort'],
    ['presses Stop in another tab (the stream stays open)', 'other-tab'],
  ] as const) {
    it(`stops the model, keeps the partial answer as partial and counts it when the person ${how}`, async () => {
      const { id, before } = await conversationWithHistory()
      const usedBefore = (await usage()).used
      const content = unique(`A long answer someone stops (${leave}).`)
      const stop = new AbortController()
      const reader = await startSlowAnswer(id, content, { signal: stop.signal })
      const seen = deltaText(parseEvents(reader.frames.filter((frame) => frame.event === 'delta')))
      if (leave === 'abort') {
        await pressStop(id, stop)
        await reader.closed().catch(() => undefined)
      } else {
        const response = await ada.send('POST', `/api/assistant/conversations/${id}/stop`, {})
        expect(await response.json()).toEqual({ streaming: 1 })
        // The tab that sent it reads the answer's end as it was stopped: partial, no error.
        await reader.closed()
        const events = parseEvents(reader.frames)
        expect(eventOrder(events)).toEqual(['message', 'delta*', 'usage', 'done'])
        expect(events.at(-1)?.data).toMatchObject({ message: { status: 'partial' } })
      }

      const request = await finishedRequest(content)
      expect(request.outcome).toBe('aborted')
      expect(request.completionTokens).toBeLessThan(request.plannedCompletionTokens ?? 0)

      // Reloading the conversation shows what came, marked partial, with its count.
      const answer = await settledAnswer(id)
      expect(answer.status).toBe('partial')
      expect(answer.error).toBeNull()
      expect(answer.content.startsWith(seen)).toBe(true)
      expect(answer.content.length).toBeGreaterThanOrEqual(seen.length)
      expect(answer.usage).toMatchObject({ estimated: true })
      expect(answer.usage?.completionTokens).toBeGreaterThanOrEqual(3)
      await waitFor(async () => ((await usage()).reserved === 0 ? true : undefined))
      expect((await usage()).used).toBe(usedBefore + (answer.usage?.totalTokens ?? 0))
      await expectIntactAndWorking(id, before, content)
    })
  }
})
