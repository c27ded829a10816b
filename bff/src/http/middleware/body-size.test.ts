import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { bodySize } from './body-size.ts'
import { bareApp } from '../../testing/middleware-app.ts'

function app() {
  return bareApp()
    .use(bodySize({ maxBytes: 10 }))
    .post('/', async (c) => c.text(await c.req.text()))
}

describe('bodySize', () => {
  it('lets a body within the limit through intact', async () => {
    const response = await app().request('/', { method: 'POST', body: '0123456789' })
    expect(await response.text()).toBe('0123456789')
  })

  it('refuses a larger body with payload_too_large', async () => {
    const response = await app().request('/', { method: 'POST', body: '01234567890' })
    expect(response.status).toBe(413)
    expect(errorBodySchema.parse(await response.json()).error).toMatchObject({
      code: 'payload_too_large',
      details: { limitBytes: 10 },
    })
  })

  it('lets a body with a declared length within the limit through intact', async () => {
    const response = await app().request('/', {
      method: 'POST',
      body: '0123456789',
      headers: { 'content-length': '10' },
    })
    expect(await response.text()).toBe('0123456789')
  })

  it('refuses on a declared Content-Length before reading the body', async () => {
    const response = await app().request('/', {
      method: 'POST',
      body: 'x',
      headers: { 'content-length': '1000000' },
    })
    expect(response.status).toBe(413)
  })
})
