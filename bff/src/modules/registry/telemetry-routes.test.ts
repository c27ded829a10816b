import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createTestApp, csrfHeaders } from '../../testing/app.ts'

const report = {
  remote: 'billing',
  version: '1.2.3',
  stage: 'entry',
  message: 'remoteEntry.js timed out',
  fellBack: true,
}

function post(
  app: ReturnType<typeof createTestApp>['app'],
  body: string,
  headers: Record<string, string> = csrfHeaders,
) {
  return app.request('/api/telemetry/remote-errors', { method: 'POST', body, headers })
}

async function errorOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error
}

describe('POST /api/telemetry/remote-errors', () => {
  it('accepts a report with 202, logs it as a warning and keeps it for error rates', async () => {
    const { app, logs, telemetry } = createTestApp()
    const response = await post(app, JSON.stringify(report))
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ accepted: true })
    const requestId = response.headers.get('x-request-id')
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'remote error reported',
        remote: 'billing',
        stage: 'entry',
        requestId,
      }),
    )
    expect(telemetry.recent()).toEqual([{ ...report, at: '2026-01-01T00:00:00.000Z', requestId }])
  })

  it('refuses malformed JSON with 422 validation_failed', async () => {
    const response = await post(createTestApp().app, '{"remote": "billing",')
    expect(response.status).toBe(422)
    expect(await errorOf(response)).toMatchObject({
      code: 'validation_failed',
      details: { issues: [{ path: '', message: 'The body is not valid JSON.' }] },
    })
  })

  it('refuses wrong types with 422 and one issue per field', async () => {
    const response = await post(
      createTestApp().app,
      JSON.stringify({ ...report, version: 3, stage: 'lunch' }),
    )
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('validation_failed')
    const paths = (error.details as { issues: { path: string }[] }).issues.map(
      (issue) => issue.path,
    )
    expect(paths.sort()).toEqual(['stage', 'version'])
  })

  it('refuses a body over TELEMETRY_BODY_LIMIT_BYTES with 413', async () => {
    const { app, telemetry } = createTestApp({ env: { TELEMETRY_BODY_LIMIT_BYTES: '512' } })
    const response = await post(app, JSON.stringify({ ...report, message: 'x'.repeat(600) }))
    expect(response.status).toBe(413)
    expect(await errorOf(response)).toMatchObject({
      code: 'payload_too_large',
      details: { limitBytes: 512 },
    })
    expect(telemetry.recent()).toEqual([])
  })

  it('refuses another content type with 415', async () => {
    const response = await post(createTestApp().app, JSON.stringify(report), {
      ...csrfHeaders,
      'content-type': 'text/plain',
    })
    expect(response.status).toBe(415)
    expect((await errorOf(response)).code).toBe('unsupported_media_type')
  })

  it('answers a flood with 429 and Retry-After, until the minute has passed', async () => {
    const { app, clock } = createTestApp({ env: { TELEMETRY_RATE_LIMIT: '5' } })
    const statuses: number[] = []
    for (let n = 0; n < 5; n += 1) statuses.push((await post(app, JSON.stringify(report))).status)
    expect(statuses).toEqual([202, 202, 202, 202, 202])
    clock.advance(20_000)
    const flooded = await post(app, JSON.stringify(report))
    expect(flooded.status).toBe(429)
    expect(flooded.headers.get('retry-after')).toBe('40')
    expect((await errorOf(flooded)).code).toBe('rate_limited')
    clock.advance(40_000)
    expect((await post(app, JSON.stringify(report))).status).toBe(202)
  })

  it('refuses a request without the CSRF header with 403 csrf_failed', async () => {
    const { origin, 'content-type': contentType } = csrfHeaders
    const response = await post(createTestApp().app, JSON.stringify(report), {
      origin,
      'content-type': contentType,
    })
    expect(response.status).toBe(403)
    expect((await errorOf(response)).code).toBe('csrf_failed')
  })

  it('refuses a request from a foreign Origin with 403 csrf_failed', async () => {
    const response = await post(createTestApp().app, JSON.stringify(report), {
      ...csrfHeaders,
      origin: 'https://evil.example',
    })
    expect(response.status).toBe(403)
    expect((await errorOf(response)).code).toBe('csrf_failed')
  })
})

describe('POST /api/telemetry/remote-loads', () => {
  const load = {
    remote: 'billing',
    version: '1.2.3',
    target: 'route',
    entryMs: 120,
    exposeMs: 80,
    mountMs: 40,
    readyMs: 900,
    preloaded: true,
  }
  const postLoads = (app: ReturnType<typeof createTestApp>['app'], body: string) =>
    app.request('/api/telemetry/remote-loads', { method: 'POST', body, headers: csrfHeaders })

  it("accepts a page's loads with 202", async () => {
    const response = await postLoads(createTestApp().app, JSON.stringify({ loads: [load] }))
    expect(response.status).toBe(202)
    expect(await response.json()).toEqual({ accepted: true })
  })

  it.each([
    ['no loads', { loads: [] }],
    ['a negative time', { loads: [{ ...load, entryMs: -1 }] }],
    ['an unknown target', { loads: [{ ...load, target: 'footer' }] }],
    ['an extra field', { loads: [{ ...load, userAgent: 'x' }] }],
    ['more than 20 loads', { loads: Array.from({ length: 21 }, () => load) }],
    ['a bad remote name', { loads: [{ ...load, remote: '../etc' }] }],
  ])('refuses %s with 422 validation_failed', async (_, body) => {
    const response = await postLoads(createTestApp().app, JSON.stringify(body))
    expect(response.status).toBe(422)
    expect((await errorOf(response)).code).toBe('validation_failed')
  })
})
