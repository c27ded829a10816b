import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { z } from 'zod/mini'
import { jsonBody, requireJson } from './json-body.ts'
import { bareApp } from '../../testing/middleware-app.ts'

function app() {
  return bareApp().post('/', requireJson(), jsonBody(z.strictObject({ n: z.int() })), (c) =>
    c.json({ doubled: c.req.valid('json').n * 2 }),
  )
}

const post = (body: string, contentType = 'application/json') =>
  app().request('/', { method: 'POST', body, headers: { 'content-type': contentType } })

describe('requireJson and jsonBody', () => {
  it('hands the validated body to the handler', async () => {
    expect(await (await post('{"n":21}')).json()).toEqual({ doubled: 42 })
    expect((await post('{"n":1}', 'application/json; charset=utf-8')).status).toBe(200)
  })

  it('refuses another media type with unsupported_media_type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      const response = await post('{"n":1}', type)
      expect(response.status).toBe(415)
      expect(errorBodySchema.parse(await response.json()).error.code).toBe('unsupported_media_type')
    }
  })

  it('refuses malformed JSON with validation_failed and says the body is not JSON', async () => {
    for (const body of ['{"n":', '', 'nope']) {
      const response = await post(body)
      expect(response.status).toBe(422)
      expect(errorBodySchema.parse(await response.json()).error).toMatchObject({
        code: 'validation_failed',
        details: { issues: [{ path: '', message: 'The body is not valid JSON.' }] },
      })
    }
  })

  it('refuses the wrong shape with one issue per field', async () => {
    const response = await post('{"n":"seven","extra":true}')
    expect(response.status).toBe(422)
    const { error } = errorBodySchema.parse(await response.json())
    const issues = (error.details as { issues: { path: string }[] }).issues
    expect(issues.map((issue) => issue.path).sort()).toEqual(['', 'n'])
  })
})
