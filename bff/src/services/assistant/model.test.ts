import { startOpenAiEmulator } from '@tessera/emulators/openai/node'
import type { RunningOpenAiEmulator } from '@tessera/emulators/openai/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EnvError, loadEnv } from '../../env.ts'
import { createChatModel, modelFailureOf, retryAfterSecondsOf } from './model.ts'
import type { AnswerChunk, ChatModel } from './model.ts'

let openai: RunningOpenAiEmulator
let model: ChatModel

beforeAll(async () => {
  openai = await startOpenAiEmulator({
    port: 0,
    tokensPerSecond: Number.POSITIVE_INFINITY,
    apiKey: 'sk-right',
  })
  model = createChatModel({ baseURL: `${openai.url}/v1`, apiKey: 'sk-right', timeoutMs: 500 })
})
afterAll(() => openai.close())

async function collect(stream: AsyncIterable<AnswerChunk>): Promise<AnswerChunk[]> {
  const chunks: AnswerChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

const ask = (content: string, chat: ChatModel = model) =>
  chat.answer(
    { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], maxAnswerTokens: 500 },
    new AbortController().signal,
  )

/** What the chat model throws for `content`, as the catalogue names it. */
async function failureOf(content: string, chat: ChatModel = model) {
  const error: unknown = await ask(content, chat).then(
    () => null,
    (caught: unknown) => caught,
  )
  expect(error).not.toBeNull()
  return modelFailureOf(error)
}

describe('the chat model', () => {
  it('streams text, the finish and the usage report of an answer', async () => {
    const chunks = await collect(await ask('Describe a lighthouse.'))
    const text = chunks.map((chunk) => chunk.text).join('')
    const request = openai.control
      .requests()
      .find((entry) => entry.lastUserMessage === 'Describe a lighthouse.')
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
    const mapped = createChatModel({
      baseURL: `${openai.url}/v1`,
      apiKey: 'sk-right',
      timeoutMs: 500,
      modelMap: { 'gpt-4o-mini': 'gpt-4.1' },
    })
    await collect(await ask('Which model are you?', mapped))
    const request = openai.control
      .requests()
      .find((entry) => entry.lastUserMessage === 'Which model are you?')
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
    openai.control.armFault({ type: 'rate_limit', retryAfterMs: 4200, match: 'busy one' })
    expect(await failureOf('busy one')).toEqual({
      code: 'model_busy',
      retryAfterSeconds: 5,
      misconfigured: false,
    })
    const tries = openai.control.requests().filter((entry) => entry.lastUserMessage === 'busy one')
    expect(tries).toHaveLength(1)
  })

  it('names 5xx, a refused connection and a slow server as upstream failures', async () => {
    openai.control.armFault({ type: 'server_error', status: 502, match: 'broken one' })
    expect(await failureOf('broken one')).toEqual({
      code: 'upstream_unavailable',
      misconfigured: false,
    })
    // A port nobody listens on: the emulator's, once closed.
    const gone = await startOpenAiEmulator({ port: 0 })
    await gone.close()
    const nowhere = createChatModel({ baseURL: `${gone.url}/v1`, apiKey: 'k', timeoutMs: 500 })
    expect(await failureOf('anyone there?', nowhere)).toEqual({
      code: 'upstream_unavailable',
      misconfigured: false,
    })
    openai.control.armFault({
      type: 'stall',
      endpoint: 'moderations',
      match: 'slow check',
      count: 2,
    })
    const error: unknown = await model.moderate('slow check').then(
      () => null,
      (caught: unknown) => caught,
    )
    expect(modelFailureOf(error)).toEqual({ code: 'upstream_timeout', misconfigured: false })
  })

  it('marks a wrong key or an unknown model as a configuration problem', async () => {
    const wrongKey = createChatModel({
      baseURL: `${openai.url}/v1`,
      apiKey: 'sk-wrong',
      timeoutMs: 500,
    })
    expect(await failureOf('hello', wrongKey)).toEqual({
      code: 'upstream_unavailable',
      misconfigured: true,
    })
    const unknownModel = createChatModel({
      baseURL: `${openai.url}/v1`,
      apiKey: 'sk-right',
      timeoutMs: 500,
      modelMap: { 'gpt-4o-mini': 'no-such-model' },
    })
    expect(await failureOf('hello', unknownModel)).toMatchObject({ misconfigured: true })
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
