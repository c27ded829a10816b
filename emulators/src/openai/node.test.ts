import OpenAI from 'openai'
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MODERATION_FLAGGED_CATEGORIES, MODERATION_TEST_PHRASE } from './moderation.ts'
import { startOpenAiEmulator } from './node.ts'
import type { RunningOpenAiEmulator } from './node.ts'
import type { RequestRecord } from './request-log.ts'
import { countPromptTokens, countTokens } from './tokenizer.ts'

// Fast by default so the file stays quick; tests about pace arm a `slow` fault.
const TOKENS_PER_SECOND = 5000
let emulator: RunningOpenAiEmulator
let client: OpenAI

beforeAll(async () => {
  emulator = await startOpenAiEmulator({ port: 0, tokensPerSecond: TOKENS_PER_SECOND })
  client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'sk-test-local', maxRetries: 0 })
})
afterAll(() => emulator.close())
beforeEach(() => emulator.control.reset())

const ask = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }]

async function collect(stream: AsyncIterable<ChatCompletionChunk>) {
  const chunks: ChatCompletionChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

const contentOf = (chunks: readonly ChatCompletionChunk[]) =>
  chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')
const contentChunks = (chunks: readonly ChatCompletionChunk[]) =>
  chunks.filter((chunk) => (chunk.choices[0]?.delta.content ?? '') !== '')

/** Poll the request log until a record for `match` satisfies `done`, or fail at the deadline. */
async function waitForRecord(
  match: string,
  done: (record: RequestRecord) => boolean,
  timeoutMs = 3000,
): Promise<RequestRecord> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const response = await fetch(
      `${emulator.url}/_emulator/requests?match=${encodeURIComponent(match)}`,
    )
    const { requests } = (await response.json()) as { requests: RequestRecord[] }
    const record = requests.find(done)
    if (record !== undefined) return record
    if (Date.now() > deadline)
      throw new Error(`no request matching ${match} reached the state: ${JSON.stringify(requests)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('chat completions through the openai SDK', () => {
  it('answers a question with a readable local answer and usage that adds up', async () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are helpful.' },
      { role: 'user', content: 'How do tide pools form?' },
    ]
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages })
    const content = completion.choices[0]?.message.content ?? ''
    expect(content).toMatch(/^\(local model\) You asked about “How do tide pools form\?”/)
    expect(completion.choices[0]?.finish_reason).toBe('stop')
    expect(completion.usage).toMatchObject({
      prompt_tokens: countPromptTokens([
        { text: 'You are helpful.' },
        { text: 'How do tide pools form?' },
      ]),
      completion_tokens: countTokens(content),
    })
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    )
    expect(completion._request_id).toMatch(/^req_/)
  })

  it('streams the same answer in chunks, ending with a usage chunk that counts them', async () => {
    const messages = ask('Write a TypeScript function that adds two numbers')
    const whole = await client.chat.completions.create({ model: 'gpt-4o', messages })
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'gpt-4o',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      }),
    )
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' })
    expect(contentOf(chunks)).toBe(whole.choices[0]?.message.content)
    const last = chunks[chunks.length - 1]
    const finish = chunks[chunks.length - 2]
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true)
    expect(finish?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' })
    expect(last?.choices).toEqual([])
    expect(last?.usage?.completion_tokens).toBe(contentChunks(chunks).length)
    expect(last?.usage?.prompt_tokens).toBe(whole.usage?.prompt_tokens)
    expect(last?.usage?.total_tokens).toBe(
      (last?.usage?.prompt_tokens ?? 0) + (last?.usage?.completion_tokens ?? 0),
    )
  })

  it('sends data lines only and ends the stream with [DONE]', async () => {
    const response = await fetch(`${emulator.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test-local', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: ask('hi'), stream: true }),
    })
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = (await response.text()).split('\n\n').filter((event) => event !== '')
    expect(events.every((event) => event.startsWith('data: '))).toBe(true)
    expect(events[events.length - 1]).toBe('data: [DONE]')
    expect(events.some((event) => event.includes('"usage"'))).toBe(false)
  })

  it('stops at max_completion_tokens with finish_reason length, streamed or not', async () => {
    const messages = ask('Tell me about lighthouses')
    const whole = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages,
      max_completion_tokens: 7,
    })
    expect(whole.choices[0]?.finish_reason).toBe('length')
    expect(whole.usage?.completion_tokens).toBe(7)
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        max_tokens: 7,
        stream: true,
        stream_options: { include_usage: true },
      }),
    )
    expect(contentChunks(chunks)).toHaveLength(7)
    expect(contentOf(chunks)).toBe(whole.choices[0]?.message.content)
    expect(
      chunks.find((chunk) => chunk.choices[0]?.finish_reason != null)?.choices[0]?.finish_reason,
    ).toBe('length')
  })

  it('gives the same answer to the same prompt every time', async () => {
    const once = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: ask('Name three rivers'),
    })
    const again = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: ask('Name three rivers'),
    })
    const other = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: ask('Name three mountains'),
    })
    expect(again.choices[0]?.message.content).toBe(once.choices[0]?.message.content)
    expect(other.choices[0]?.message.content).not.toBe(once.choices[0]?.message.content)
  })

  it('rejects an unknown model and an unsupported parameter with typed SDK errors', async () => {
    await expect(
      client.chat.completions.create({ model: 'gpt-9', messages: ask('hi') }),
    ).rejects.toMatchObject({
      constructor: OpenAI.NotFoundError,
      code: 'model_not_found',
    })
    const withTools = client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('hi'),
      tools: [{ type: 'function', function: { name: 'noop' } }],
    })
    await expect(withTools).rejects.toMatchObject({
      constructor: OpenAI.BadRequestError,
      param: 'tools',
      type: 'invalid_request_error',
    })
  })

  it('refuses a wrong API key with an AuthenticationError', async () => {
    const guarded = await startOpenAiEmulator({ port: 0, apiKey: 'sk-right-key' })
    try {
      const wrong = new OpenAI({
        baseURL: `${guarded.url}/v1`,
        apiKey: 'sk-wrong-key',
        maxRetries: 0,
      })
      await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError)
      const right = new OpenAI({
        baseURL: `${guarded.url}/v1`,
        apiKey: 'sk-right-key',
        maxRetries: 0,
      })
      expect((await right.models.list()).data.length).toBeGreaterThan(0)
    } finally {
      await guarded.close()
    }
  })
})

describe('models and moderation through the openai SDK', () => {
  it('lists the served models and retrieves one', async () => {
    const page = await client.models.list()
    expect(page.data.map((model) => model.id)).toEqual(['gpt-4o-mini', 'gpt-4o', 'gpt-4.1'])
    expect(await client.models.retrieve('gpt-4o')).toMatchObject({ id: 'gpt-4o', object: 'model' })
    await expect(client.models.retrieve('davinci')).rejects.toBeInstanceOf(OpenAI.NotFoundError)
  })

  it('flags the documented test phrase and not an ordinary sentence', async () => {
    const flagged = await client.moderations.create({
      model: 'omni-moderation-latest',
      input: `I will ${MODERATION_TEST_PHRASE} now`,
    })
    const result = flagged.results[0]
    expect(result?.flagged).toBe(true)
    for (const category of MODERATION_FLAGGED_CATEGORIES)
      expect(result?.categories[category]).toBe(true)
    expect(result?.categories.sexual).toBe(false)
    const clean = await client.moderations.create({ input: 'What a lovely morning for a walk.' })
    expect(clean.results[0]?.flagged).toBe(false)
    expect(Object.values(clean.results[0]?.categories ?? {}).some(Boolean)).toBe(false)
  })
})

describe('injected faults seen through the openai SDK', () => {
  it('returns a 429 with retry-after headers as a RateLimitError', async () => {
    emulator.control.armFault({ type: 'rate_limit', retryAfterMs: 1500, match: 'rl-plain' })
    const error: unknown = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: ask('rl-plain') })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.RateLimitError)
    const headers = (error as InstanceType<typeof OpenAI.RateLimitError>).headers
    expect([headers.get('retry-after'), headers.get('retry-after-ms')]).toEqual(['2', '1500'])
    expect(error).toMatchObject({ code: 'rate_limit_exceeded' })
  })

  it('lets the SDK retry a 429 and succeed once the fault is used up', async () => {
    emulator.control.armFault({ type: 'rate_limit', retryAfterMs: 5, match: 'rl-retry' })
    const retrying = new OpenAI({
      baseURL: `${emulator.url}/v1`,
      apiKey: 'sk-test-local',
      maxRetries: 1,
    })
    const completion = await retrying.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('rl-retry'),
    })
    expect(completion.choices[0]?.message.content).toContain('rl-retry')
    const log = emulator.control
      .requests()
      .filter((record) => record.lastUserMessage === 'rl-retry')
    expect(log.map((record) => record.status)).toEqual([429, 200])
  })

  it('returns a 500 as an InternalServerError', async () => {
    emulator.control.armFault({ type: 'server_error', match: 'boom' })
    await expect(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: ask('boom'), stream: true }),
    ).rejects.toBeInstanceOf(OpenAI.InternalServerError)
  })

  it('fails moderation with a 500 only when a moderation fault is armed', async () => {
    emulator.control.armFault({ type: 'server_error', endpoint: 'moderations' })
    await expect(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: ask('fine') }),
    ).resolves.toBeDefined()
    await expect(client.moderations.create({ input: 'fine' })).rejects.toBeInstanceOf(
      OpenAI.InternalServerError,
    )
  })

  it('stalls a stream after its headers until the client aborts, and logs the abort', async () => {
    emulator.control.armFault({ type: 'stall', match: 'stall-forever' })
    const controller = new AbortController()
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: ask('stall-forever'), stream: true },
      { signal: controller.signal },
    )
    const reading = collect(stream)
    await waitForRecord('stall-forever', (record) => record.outcome === 'in_progress')
    controller.abort()
    // The SDK ends the loop quietly on abort rather than throwing.
    expect(await reading).toEqual([])
    expect(
      await waitForRecord('stall-forever', (record) => record.outcome === 'aborted'),
    ).toMatchObject({ completionTokens: 0, fault: 'stall' })
  })

  it('holds back the first token for the stall time, then streams the whole answer', async () => {
    emulator.control.armFault({ type: 'stall', ms: 150, match: 'stall-brief' })
    const started = performance.now()
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('stall-brief'),
      stream: true,
    })
    let firstTokenAt = 0
    let text = ''
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content ?? ''
      if (piece !== '' && firstTokenAt === 0) firstTokenAt = performance.now()
      text += piece
    }
    expect(firstTokenAt - started).toBeGreaterThanOrEqual(140)
    expect(text).toMatch(/^\(local model\)/)
  })

  it('times out a stalled answer that is not streamed', async () => {
    emulator.control.armFault({ type: 'stall', match: 'stall-plain' })
    await expect(
      client.chat.completions.create(
        { model: 'gpt-4o-mini', messages: ask('stall-plain') },
        { timeout: 100 },
      ),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError)
    expect(
      await waitForRecord('stall-plain', (record) => record.outcome === 'aborted'),
    ).toMatchObject({ fault: 'stall' })
  })

  it('cuts the connection mid-answer so the stream loop throws without a finish chunk', async () => {
    const whole = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('cut-me please'),
    })
    emulator.control.armFault({ type: 'cut', afterTokens: 4, match: 'cut-me' })
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: ask('cut-me please'),
      stream: true,
    })
    const received: ChatCompletionChunk[] = []
    const failure = await (async () => {
      for await (const chunk of stream) received.push(chunk)
    })().then(
      () => undefined,
      (error: unknown) => error,
    )
    // undici reports the truncated chunked body as `TypeError: terminated`; the SDK passes it on.
    expect(failure).toBeInstanceOf(TypeError)
    expect(String((failure as TypeError).cause)).toMatch(/other side closed/)
    expect(contentChunks(received)).toHaveLength(4)
    expect(whole.choices[0]?.message.content?.startsWith(contentOf(received))).toBe(true)
    expect(received.some((chunk) => chunk.choices[0]?.finish_reason != null)).toBe(false)
    expect(emulator.control.requests().at(-1)).toMatchObject({
      outcome: 'cut',
      completionTokens: 4,
    })
  })

  it('cuts a non-streamed answer into a connection error', async () => {
    emulator.control.armFault({ type: 'cut', match: 'cut-plain' })
    await expect(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: ask('cut-plain') }),
    ).rejects.toThrow()
    expect(emulator.control.requests().at(-1)).toMatchObject({ outcome: 'cut' })
  })

  it('streams measurably slower under a slow fault than at the normal pace', async () => {
    const perToken = async (content: string) => {
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: ask(content),
        stream: true,
        max_tokens: 30,
      })
      const arrivals: number[] = []
      for await (const chunk of stream)
        if ((chunk.choices[0]?.delta.content ?? '') !== '') arrivals.push(performance.now())
      return ((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)) / (arrivals.length - 1)
    }
    emulator.control.armFault({ type: 'slow', tokensPerSecond: 250, match: 'pace slow' })
    const normal = await perToken('pace normal')
    const slow = await perToken('pace slow')
    // 250/s against 5000/s: a twentyfold gap; a fourfold margin absorbs a busy machine.
    expect(slow).toBeGreaterThan(normal * 4)
  })

  it('stops generating when the client aborts mid-stream', async () => {
    emulator.control.armFault({ type: 'slow', tokensPerSecond: 100, match: 'abort-me' })
    const controller = new AbortController()
    const stream = await client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: ask('abort-me'), stream: true },
      { signal: controller.signal },
    )
    let tokens = 0
    for await (const chunk of stream) {
      if ((chunk.choices[0]?.delta.content ?? '') !== '') tokens += 1
      if (tokens === 3) controller.abort()
    }
    const record = await waitForRecord('abort-me', (candidate) => candidate.outcome === 'aborted')
    expect(record.completionTokens).toBeGreaterThanOrEqual(3)
    expect(record.completionTokens).toBeLessThan(record.plannedCompletionTokens ?? 0)
    // Once aborted, the count no longer moves.
    await client.models.list()
    expect((await waitForRecord('abort-me', () => true)).completionTokens).toBe(
      record.completionTokens,
    )
  })
})
