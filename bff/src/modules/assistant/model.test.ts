import { startOpenAiEmulator } from '@tessera/emulators/openai/node'
import type { RunningOpenAiEmulator } from '@tessera/emulators/openai/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EnvError, loadEnv } from '../../platform/env.ts'
import { createNodeFetch } from '../../platform/node-fetch.ts'
import { createChatModel, modelFailureOf, retryAfterSecondsOf } from './model.ts'
import type { AnswerChunk, ChatModel, ChatModelOptions } from './model.ts'

let openai: RunningOpenAiEmulator

beforeAll(async () => {
  openai = await startOpenAiEmulator({
    port: 0,
    tokensPerSecond: Number.POSITIVE_INFINITY,
    apiKey: 'sk-right',
  })
})
afterAll(() => openai.close())

async function collect(stream: AsyncIterable<AnswerChunk>): Promise<AnswerChunk[]> {
  const chunks: AnswerChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

const ask = (content: string, chat: ChatModel, signal = new AbortController().signal) =>
  chat.answer(
    { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], maxAnswerTokens: 500 },
    signal,
  )

/** What the chat model throws for `content`, as the catalogue names it. */
async function failureOf(content: string, chat: ChatModel) {
  const error: unknown = await ask(content, chat).then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).not.toBeNull()
  return modelFailureOf(error)
}

// The SDK over the runtime's fetch (the default) and over node-fetch.ts (what the Node entry
// gives it): the same answers and the same failures.
describe.each([
  { client: 'the runtime’s fetch', fetch: (): typeof fetch | undefined => undefined },
  { client: 'node-fetch.ts', fetch: createNodeFetch },
])('the chat model over $client', ({ client, fetch: fetchOf }) => {
  const httpClient = fetchOf()
  const chatModel = (options: Partial<ChatModelOptions> = {}) =>
    createChatModel({
      baseURL: `${openai.url}/v1`,
      apiKey: 'sk-right',
      timeoutMs: 500,
      ...(httpClient === undefined ? {} : { fetch: httpClient }),
      ...options,
    })
  let model: ChatModel
  beforeAll(() => {
    model = chatModel()
  })
  // Each client's requests are told apart in the stand-in's log.
  const said = (text: string) => `${text} (${client})`
  it('streams text, the finish and the usage report of an answer', async () => {
    const chunks = await collect(await ask(said('Describe a lighthouse.'), model))
    const text = chunks.map((chunk) => chunk.text).join('')
    const request = openai.control
      .requests()
      .find((entry) => entry.lastUserMessage === said('Describe a lighthouse.'))
    expect(text).toContain('lighthouse')
    expect(chunks.some((chunk) => chunk.finishReason === 'stop')).toBe(true)
    expect(chunks.at(-1)?.usage).toEqual({
      promptTokens: request?.promptTokens,
      completionTokens: request?.completionTokens,
    })
  })

  it('caps the answer at the longest answer the send reserved', async () => {
    const chunks = await collect(
      await model.answer(
        {
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'Be brief.' }],
          maxAnswerTokens: 4,
        },
        new AbortController().signal,
      ),
    )
    expect(chunks.filter((chunk) => chunk.text !== '')).toHaveLength(4)
    expect(chunks.some((chunk) => chunk.finishReason === 'length')).toBe(true)
  })

  it('asks the server for its own name of a model when the operator maps it', async () => {
    const mapped = chatModel({ modelMap: { 'gpt-4o-mini': 'gpt-4.1' } })
    await collect(await ask(said('Which model are you?'), mapped))
    const request = openai.control
      .requests()
      .find((entry) => entry.lastUserMessage === said('Which model are you?'))
    expect(request?.model).toBe('gpt-4.1')
  })

  it('takes the operator’s model names from OPENAI_MODEL_MAP, and refuses a malformed map', () => {
    expect(loadEnv({}).OPENAI_MODEL_MAP).toEqual({})
    expect(
      loadEnv({ OPENAI_MODEL_MAP: ' gpt-4o-mini = llama3.2 , gpt-4o=qwen2.5:32b,' })
        .OPENAI_MODEL_MAP,
    ).toEqual({ 'gpt-4o-mini': 'llama3.2', 'gpt-4o': 'qwen2.5:32b' })
    expect(() => loadEnv({ OPENAI_MODEL_MAP: 'gpt-4o-mini' })).toThrow(EnvError)
    expect(() => loadEnv({ OPENAI_MODEL_MAP: 'gpt-4o-mini=' })).toThrow(/OPENAI_MODEL_MAP/)
  })

  it('flags the moderation test phrase and nothing else', async () => {
    expect(await model.moderate('Please tessera-flag-me now')).toBe(true)
    expect(await model.moderate('A kind question about gardens.')).toBe(false)
  })

  it('names a 429 model_busy with its wait, and does not retry it', async () => {
    openai.control.armFault({ type: 'rate_limit', retryAfterMs: 4200, match: said('busy one') })
    expect(await failureOf(said('busy one'), model)).toEqual({
      code: 'model_busy',
      retryAfterSeconds: 5,
      misconfigured: false,
    })
    const tries = openai.control
      .requests()
      .filter((entry) => entry.lastUserMessage === said('busy one'))
    expect(tries).toHaveLength(1)
  })

  it('names 5xx, a refused connection and a slow server as upstream failures', async () => {
    openai.control.armFault({ type: 'server_error', status: 502, match: said('broken one') })
    expect(await failureOf(said('broken one'), model)).toEqual({
      code: 'upstream_unavailable',
      misconfigured: false,
    })
    // A port nobody listens on: the emulator's, once closed.
    const gone = await startOpenAiEmulator({ port: 0 })
    await gone.close()
    const nowhere = chatModel({ baseURL: `${gone.url}/v1`, apiKey: 'k' })
    expect(await failureOf(said('anyone there?'), nowhere)).toEqual({
      code: 'upstream_unavailable',
      misconfigured: false,
    })
    openai.control.armFault({
      type: 'stall',
      endpoint: 'moderations',
      match: said('slow check'),
      count: 2,
    })
    const error: unknown = await model.moderate(said('slow check')).then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(modelFailureOf(error)).toEqual({ code: 'upstream_timeout', misconfigured: false })
  })

  it('marks a wrong key or an unknown model as a configuration problem', async () => {
    const wrongKey = chatModel({ apiKey: 'sk-wrong' })
    expect(await failureOf(said('hello'), wrongKey)).toEqual({
      code: 'upstream_unavailable',
      misconfigured: true,
    })
    const unknownModel = chatModel({ modelMap: { 'gpt-4o-mini': 'no-such-model' } })
    expect(await failureOf(said('hello'), unknownModel)).toMatchObject({ misconfigured: true })
  })
  it('throws mid-answer when the stream is cut, after the text that came', async () => {
    openai.control.armFault({ type: 'cut', afterTokens: 3, match: said('cut me') })
    const chunks: AnswerChunk[] = []
    const error: unknown = await (async () => {
      for await (const chunk of await ask(said('cut me'), model)) chunks.push(chunk)
    })().then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(error).not.toBeNull()
    expect(chunks.filter((chunk) => chunk.text !== '')).toHaveLength(3)
    expect(chunks.some((chunk) => chunk.finishReason !== null)).toBe(false)
  })

  it('ends the request when its signal aborts mid-answer', async () => {
    openai.control.armFault({ type: 'slow', tokensPerSecond: 20, match: said('stop me') })
    const stop = new AbortController()
    const chunks: AnswerChunk[] = []
    const ended = (async () => {
      for await (const chunk of await ask(said('stop me'), model, stop.signal)) {
        chunks.push(chunk)
        if (chunks.filter((each) => each.text !== '').length === 2) stop.abort()
      }
    })().then(
      () => 'ended',
      (error: unknown) => error,
    )
    // The SDK ends an aborted stream quietly.
    expect(await ended).toBe('ended')
    expect(chunks.filter((chunk) => chunk.text !== '').length).toBeLessThan(5)
    // The stand-in saw the connection go and stopped generating.
    const request = () =>
      openai.control.requests().find((entry) => entry.lastUserMessage === said('stop me'))
    await expect.poll(() => request()?.outcome).toBe('aborted')
    expect(request()?.completionTokens).toBeLessThan(request()?.plannedCompletionTokens ?? 0)
  })
})

describe('retryAfterSecondsOf', () => {
  it('reads retry-after-ms first, then retry-after in seconds or as a date, rounding up', () => {
    const now = Date.parse('2026-11-22T10:00:00Z')
    expect(
      retryAfterSecondsOf(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), now),
    ).toBe(2)
    expect(retryAfterSecondsOf(new Headers({ 'retry-after': '3' }), now)).toBe(3)
    expect(
      retryAfterSecondsOf(new Headers({ 'retry-after': 'Sun, 22 Nov 2026 10:00:07 GMT' }), now),
    ).toBe(7)
    expect(retryAfterSecondsOf(new Headers({ 'retry-after': '0' }), now)).toBe(1)
    expect(retryAfterSecondsOf(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined()
    expect(retryAfterSecondsOf(new Headers(), now)).toBeUndefined()
    expect(retryAfterSecondsOf(undefined, now)).toBeUndefined()
  })
})
