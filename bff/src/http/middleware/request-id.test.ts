import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import type { AppEnv } from '../app-env.ts'
import { requestId } from './request-id.ts'

function app() {
  return new Hono<AppEnv>().use(requestId()).get('/', (c) => c.text(c.get('requestId')))
}

describe('requestId', () => {
  it('generates an id, shares it with handlers and echoes it in the response', async () => {
    const response = await app().request('/')
    const id = response.headers.get('x-request-id')
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(await response.text()).toBe(id)
  })

  it('keeps a sane incoming id so a trace can cross services', async () => {
    const response = await app().request('/', { headers: { 'x-request-id': 'trace-1234:abcd.5' } })
    expect(response.headers.get('x-request-id')).toBe('trace-1234:abcd.5')
  })

  it('replaces an incoming id that is too short, too long or full of junk', async () => {
    for (const incoming of [
      'short',
      'x'.repeat(200),
      'has spaces in it',
      '<script>alert(1)</script>',
      '"quoted-id-123"',
    ]) {
      const response = await app().request('/', { headers: { 'x-request-id': incoming } })
      expect(response.headers.get('x-request-id')).not.toBe(incoming)
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it('echoes the id on a response the route built itself, and on errors', async () => {
    const app = new Hono<AppEnv>()
      .use(requestId())
      .get(
        '/file',
        () => new Response('a static file', { headers: { 'content-type': 'text/plain' } }),
      )
      .get('/fails', () => {
        throw new Error('boom')
      })
      .onError((_error, c) => c.json({ requestId: c.get('requestId') }, 500))
    const file = await app.request('/file', { headers: { 'x-request-id': 'trace-1234:file' } })
    expect(file.headers.get('x-request-id')).toBe('trace-1234:file')
    const failed = await app.request('/fails')
    const { requestId: logged } = (await failed.json()) as { requestId: string }
    expect(failed.headers.get('x-request-id')).toBe(logged)
  })
})
