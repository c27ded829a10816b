import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiEmulator } from './node.ts'
import type { RunningOpenAiEmulator } from './node.ts'

let emulator: RunningOpenAiEmulator
let client: OpenAI

beforeAll(async () => {
  // One answer at a time, each about a second long.
  emulator = await startOpenAiEmulator({ port: 0, tokensPerSecond: 60, maxConcurrentAnswers: 1 })
  client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'sk-test-local', maxRetries: 0 })
})
afterAll(() => emulator.close())

/** Streams an answer; resolves with when its first content token and its end arrived. */
async function timed(content: string, signal?: AbortSignal) {
  const stream = await client.chat.completions.create(
    { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], stream: true },
    signal === undefined ? {} : { signal },
  )
  let first = Number.NaN
  for await (const chunk of stream) {
    if (Number.isNaN(first) && (chunk.choices[0]?.delta.content ?? '') !== '')
      first = performance.now()
  }
  return { first, end: performance.now() }
}

describe('the stand-in at capacity', () => {
  it('makes an answer beyond its capacity wait for the one generating to end', async () => {
    const [a, b] = await Promise.all([timed('First in line'), timed('Second in line')])
    // The second answer's first token comes only after the first answer ended.
    // (Without the cap both would start together; the client reads with some delay of its own.)
    expect(b.first - a.first).toBeGreaterThan(0.7 * (a.end - a.first))
  })
})
