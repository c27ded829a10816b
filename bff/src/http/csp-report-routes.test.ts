import { errorBodySchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createTestApp } from '../testing/app.ts'

const legacyReport = {
  'csp-report': {
    'document-uri': 'https://app.tessera.test/billing',
    referrer: '',
    'violated-directive': 'script-src-elem',
    'effective-directive': 'script-src-elem',
    'original-policy': "default-src 'self'; report-uri /api/csp-reports",
    disposition: 'enforce',
    'blocked-uri': 'https://evil.example/x.js',
    'line-number': 12,
    'column-number': 3,
    'source-file': 'https://app.tessera.test/assets/app.js',
    'status-code': 200,
    'script-sample': '',
  },
}

const reportingApiBatch = [
  {
    type: 'csp-violation',
    age: 10,
    url: 'https://app.tessera.test/ai',
    user_agent: 'Mozilla/5.0',
    body: {
      documentURL: 'https://app.tessera.test/ai',
      blockedURL: 'inline',
      effectiveDirective: 'style-src-attr',
      originalPolicy: "default-src 'self'",
      disposition: 'enforce',
      sample: 'color: red',
      lineNumber: null,
      columnNumber: null,
      statusCode: 200,
    },
  },
  { type: 'deprecation', age: 1, url: 'https://app.tessera.test/', body: { id: 'x' } },
]

/** The app; reports are posted as a browser posts them: no CSRF header, no Origin. */
function testApp() {
  const t = createTestApp({ deps: { clientKey: (c) => c.req.header('x-test-client') } })
  const send = (body: string, contentType: string, client = 'browser-1') =>
    t.app.request('/api/csp-reports', {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-test-client': client },
      body,
    })
  const violations = () => t.logs.filter((line) => line.msg === 'csp violation')
  return { ...t, send, violations }
}

async function codeOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error.code
}

describe('POST /api/csp-reports', () => {
  it('logs a report-uri violation sent as application/csp-report, without a CSRF header', async () => {
    const t = testApp()
    const response = await t.send(JSON.stringify(legacyReport), 'application/csp-report')
    expect(response.status).toBe(204)
    expect(t.violations()).toEqual([
      expect.objectContaining({
        level: 'warn',
        documentUrl: 'https://app.tessera.test/billing',
        blockedUrl: 'https://evil.example/x.js',
        effectiveDirective: 'script-src-elem',
        line: 12,
      }),
    ])
  })

  it('logs the CSP violations of a Reporting API batch and leaves other report types out', async () => {
    const t = testApp()
    const response = await t.send(JSON.stringify(reportingApiBatch), 'application/reports+json')
    expect(response.status).toBe(204)
    expect(t.violations()).toEqual([
      expect.objectContaining({ blockedUrl: 'inline', effectiveDirective: 'style-src-attr' }),
    ])
  })

  it('refuses other media types, bad JSON and malformed reports with catalogue errors', async () => {
    const t = testApp()
    const cases: [string, string, number, string][] = [
      [JSON.stringify(legacyReport), 'application/json', 415, 'unsupported_media_type'],
      [JSON.stringify(legacyReport), 'text/plain', 415, 'unsupported_media_type'],
      ['{', 'application/csp-report', 422, 'validation_failed'],
      ['[]', 'application/reports+json', 422, 'validation_failed'],
      ['null', 'application/csp-report', 422, 'validation_failed'],
      ['{"csp-report":{"line-number":"x"}}', 'application/csp-report', 422, 'validation_failed'],
      [
        JSON.stringify([{ type: 'csp-violation', body: { blockedURL: 42 } }]),
        'application/reports+json',
        422,
        'validation_failed',
      ],
      [
        JSON.stringify([{ type: 'csp-violation', body: { sample: 'a\u0000b' } }]),
        'application/reports+json',
        422,
        'validation_failed',
      ],
      [
        JSON.stringify(Array.from({ length: 21 }, () => reportingApiBatch[0])),
        'application/reports+json',
        422,
        'validation_failed',
      ],
    ]
    for (const [body, contentType, status, code] of cases) {
      const response = await t.send(body, contentType, `client-${status}-${body.length}`)
      expect({ status: response.status, code: await codeOf(response) }, body.slice(0, 80)).toEqual({
        status,
        code,
      })
    }
    expect(t.violations()).toEqual([])
  })

  it('refuses a body over 16 KiB before reading it', async () => {
    const t = testApp()
    const huge = JSON.stringify({ 'csp-report': { 'script-sample': 'x'.repeat(20_000) } })
    const response = await t.send(huge, 'application/csp-report')
    expect(response.status).toBe(413)
    expect(await codeOf(response)).toBe('payload_too_large')
  })

  it('limits each client to 60 reports a minute, without limiting the others', async () => {
    const t = testApp()
    const body = JSON.stringify(legacyReport)
    for (let i = 0; i < 60; i++)
      expect((await t.send(body, 'application/csp-report', 'looping-page')).status).toBe(204)
    const limited = await t.send(body, 'application/csp-report', 'looping-page')
    expect(limited.status).toBe(429)
    expect(await codeOf(limited)).toBe('rate_limited')
    expect((await t.send(body, 'application/csp-report', 'another-page')).status).toBe(204)
    t.clock.advance(60_000)
    expect((await t.send(body, 'application/csp-report', 'looping-page')).status).toBe(204)
  })
})
