import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { CachedRouter } from './cached-router.ts'

function app() {
  const seen: string[] = []
  const built = new Hono({ router: new CachedRouter() })
    .use('/items/*', async (c, next) => {
      seen.push(c.req.path)
      await next()
    })
    .get('/items/:id', (c) => c.json({ id: c.req.param('id') }))
    .post('/items/:id', (c) => c.json({ posted: c.req.param('id') }, 201))
    .get('/other', (c) => c.text('other'))
  return { app: built, seen }
}

describe('CachedRouter', () => {
  it('routes every request by its own path and method, whether its match was kept or not', async () => {
    const { app: routed, seen } = app()
    for (const id of ['a', 'b', 'a', 'b']) {
      expect(await (await routed.request(`/items/${id}`)).json()).toEqual({ id })
    }
    const posted = await routed.request('/items/a', { method: 'POST' })
    expect(posted.status).toBe(201)
    expect(await posted.json()).toEqual({ posted: 'a' })
    expect(await (await routed.request('/other')).text()).toBe('other')
    expect((await routed.request('/nowhere')).status).toBe(404)
    expect(seen).toEqual(['/items/a', '/items/b', '/items/a', '/items/b', '/items/a'])
  })

  it('keeps routing right past the paths it keeps, and for paths too long to keep', async () => {
    const { app: routed } = app()
    for (let i = 0; i < 1500; i++) {
      const response = await routed.request(`/items/${i}`)
      expect(((await response.json()) as { id: string }).id).toBe(String(i))
    }
    const long = 'x'.repeat(400)
    for (let i = 0; i < 2; i++)
      expect(await (await routed.request(`/items/${long}`)).json()).toEqual({ id: long })
  })
})
