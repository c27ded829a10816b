import { gunzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { streamSSE } from 'hono/streaming'
import { describe, expect, it } from 'vitest'
import { compressJson } from './compress-json.ts'

const big = {
  items: Array.from({ length: 200 }, (_, index) => ({ index, title: `item ${index}` })),
}

function app() {
  return new Hono()
    .use(compressJson({ thresholdBytes: 1024 }))
    .get('/big', (c) => {
      c.header('Set-Cookie', 'a=1')
      return c.json(big, 201)
    })
    .get('/small', (c) => c.json({ ok: true }))
    .get('/text', (c) => c.text('x'.repeat(5000)))
    .get('/stream', (c) =>
      streamSSE(c, async (stream) => stream.writeSSE({ data: 'x'.repeat(5000) })),
    )
}

describe('compressJson', () => {
  it('gzips a large JSON answer for a browser that takes gzip, keeping status and headers', async () => {
    const response = await app().request('/big', { headers: { 'accept-encoding': 'gzip, br' } })
    expect(response.status).toBe(201)
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect(response.headers.get('vary')).toBe('Accept-Encoding')
    expect(response.headers.get('set-cookie')).toBe('a=1')
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(response.headers.get('content-length')).toBe(String(bytes.byteLength))
    expect(bytes.byteLength).toBeLessThan(JSON.stringify(big).length / 4)
    expect(JSON.parse(gunzipSync(bytes).toString())).toEqual(big)
  })

  it('leaves small answers, other types, streams and browsers without gzip alone', async () => {
    const small = await app().request('/small', { headers: { 'accept-encoding': 'gzip' } })
    expect(small.headers.get('content-encoding')).toBeNull()
    expect(await small.json()).toEqual({ ok: true })
    const text = await app().request('/text', { headers: { 'accept-encoding': 'gzip' } })
    expect(text.headers.get('content-encoding')).toBeNull()
    const stream = await app().request('/stream', { headers: { 'accept-encoding': 'gzip' } })
    expect(stream.headers.get('content-encoding')).toBeNull()
    expect(await stream.text()).toContain('x'.repeat(5000))
    const identity = await app().request('/big', { headers: { 'accept-encoding': 'identity' } })
    expect(identity.headers.get('content-encoding')).toBeNull()
    expect(await identity.json()).toEqual(big)
  })
})
