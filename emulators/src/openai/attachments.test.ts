import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiEmulator } from './node.ts'
import type { RunningOpenAiEmulator } from './node.ts'

let emulator: RunningOpenAiEmulator
let client: OpenAI

// A 2 × 3 PNG's first 24 bytes are all the stand-in reads: signature, IHDR length and size.
const png = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 2,
  0, 0, 0, 3, 8, 2, 0, 0, 0,
]).toString('base64')

beforeAll(async () => {
  emulator = await startOpenAiEmulator({ port: 0, tokensPerSecond: Number.POSITIVE_INFINITY })
  client = new OpenAI({ baseURL: `${emulator.url}/v1`, apiKey: 'sk-test', maxRetries: 0 })
})
afterAll(() => emulator.close())

describe('image and text parts', () => {
  it('answers about each image’s type and size and each file’s words, and counts the image', async () => {
    const ask = (detail: 'low' | 'high') =>
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is attached?' },
              { type: 'text', text: 'Attached file "notes.md":\n\nfour words right here' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${png}`, detail } },
            ],
          },
        ],
      })
    const low = await ask('low')
    const answer = low.choices[0]?.message.content ?? ''
    expect(answer).toMatch(
      /^Image 1 is a PNG image of 2×3 pixels\. The file “notes\.md” has 4 words\./,
    )
    const high = await ask('high')
    expect((high.usage?.prompt_tokens ?? 0) - (low.usage?.prompt_tokens ?? 0)).toBe(170)
  })

  it('refuses an image it cannot read, and image URLs it would have to download', async () => {
    const send = (url: string) =>
      client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
      })
    await expect(send('data:image/png;base64,aGVsbG8=')).rejects.toMatchObject({
      status: 400,
      code: 'invalid_image_format',
    })
    await expect(send('https://example.com/cat.png')).rejects.toMatchObject({
      status: 400,
      code: 'invalid_image_url',
    })
  })
})
