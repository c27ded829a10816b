import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { editResponseHeaders } from './response-headers.ts'

describe('editResponseHeaders', () => {
  it('changes the headers of the response the route returned, without rebuilding it', async () => {
    let same = false
    const app = new Hono()
      .use(async (c, next) => {
        await next()
        const before = c.res
        editResponseHeaders(c, (headers) => headers.set('x-edited', 'yes'))
        same = c.res === before
      })
      .get('/', (c) => c.json({ ok: true }))
    const response = await app.request('/')
    expect(response.headers.get('x-edited')).toBe('yes')
    expect(await response.json()).toEqual({ ok: true })
    expect(same).toBe(true)
  })

  it('copies a response whose headers are immutable (a redirect) before changing them', async () => {
    const app = new Hono()
      .use(async (c, next) => {
        await next()
        editResponseHeaders(c, (headers) => headers.set('x-edited', 'yes'))
      })
      .get('/', () => Response.redirect('http://localhost/elsewhere', 302))
    const response = await app.request('/')
    expect(response.status).toBe(302)
    expect(response.headers.get('location')).toBe('http://localhost/elsewhere')
    expect(response.headers.get('x-edited')).toBe('yes')
  })

  it('leaves a streamed body streaming: the first chunk arrives before the route writes the next', async () => {
    let writeSecond!: () => void
    const secondAllowed = new Promise<void>((resolve) => (writeSecond = resolve))
    const app = new Hono()
      .use(async (c, next) => {
        await next()
        editResponseHeaders(c, (headers) => headers.set('x-edited', 'yes'))
      })
      .get('/', () => {
        const encoder = new TextEncoder()
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode('data: one\n\n'))
            await secondAllowed
            controller.enqueue(encoder.encode('data: two\n\n'))
            controller.close()
          },
        })
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
      })
    const response = await app.request('/')
    expect(response.headers.get('x-edited')).toBe('yes')
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    expect((await reader.read()).value).toBe('data: one\n\n')
    writeSecond()
    expect((await reader.read()).value).toBe('data: two\n\n')
    await reader.cancel()
  })

  it('lets an error that is not about immutable headers through', async () => {
    const app = new Hono()
      .use(async (c, next) => {
        await next()
        editResponseHeaders(c, () => {
          throw new RangeError('not a header problem')
        })
      })
      .get('/', (c) => c.text('ok'))
      .onError((error, c) => c.text(error.message, 500))
    const response = await app.request('/')
    expect(response.status).toBe(500)
    expect(await response.text()).toBe('not a header problem')
  })
})
