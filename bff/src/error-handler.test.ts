import { readdir, readFile } from 'node:fs/promises'
import { errorBodySchema, errorCatalogue, errorCodes, isCatalogued } from '@tessera/contracts'
import type { ErrorCode } from '@tessera/contracts'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { HostAssets } from './host-page.ts'
import { createTestApp, csrfHeaders, remoteEntry } from './testing.ts'

const assets: HostAssets = {
  indexHtml: async () => '<!doctype html><title>host</title>',
  serve: async (c) => (c.req.path === '/assets/app.js' ? new Response('1') : null),
}

/** The app with a small rate limit and body limits, so odd input reaches every failure path. */
function fuzzApp() {
  return createTestApp({
    env: {
      TELEMETRY_RATE_LIMIT: '20',
      TELEMETRY_BODY_LIMIT_BYTES: '300',
      BODY_LIMIT_BYTES: '2000',
    },
    registry: { remotes: [remoteEntry(), { name: 'broken' }] },
    deps: { assets },
  })
}

const paths = [
  '/api/health',
  '/api/remotes',
  '/api/telemetry/remote-errors',
  '/api/events',
  '/api/health/',
  '/api/telemetry',
  '/api/nope',
  '/api',
  '/API/health',
  '/api/%ZZ',
  '/api/../api/health',
  '/api/remotes?x=%00&y[]=1',
  '/',
  '/billing/plans',
  '/assets/app.js',
  '/assets/missing.js',
  '/%',
  `/${'a'.repeat(3000)}`,
]
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const validReport = JSON.stringify({
  remote: 'billing',
  version: '1.0.0',
  stage: 'entry',
  message: 'x',
})
const bodies: (string | Uint8Array | undefined)[] = [
  undefined,
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '1e999',
  '{"remote":1,"version":[],"stage":{}}',
  '{"__proto__":{"polluted":true},"remote":"billing"}',
  validReport,
  JSON.stringify({
    remote: 'billing',
    version: '1.0.0',
    stage: 'entry',
    message: 'x'.repeat(5000),
  }),
  new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x22]),
]
const headerSets: Record<string, string>[] = [
  {},
  csrfHeaders,
  { ...csrfHeaders, 'content-type': 'text/plain' },
  { ...csrfHeaders, 'content-type': 'application/json; charset=klingon' },
  { ...csrfHeaders, 'content-type': 'multipart/form-data; boundary=x' },
  { ...csrfHeaders, origin: 'null' },
  { ...csrfHeaders, accept: 'text/html', 'x-request-id': '../../etc/passwd' },
  { accept: 'text/event-stream', 'x-forwarded-for': '10.0.0.1', 'x-tessera-csrf': '0' },
]

/** Checks one response: 2xx, or a catalogue error body with the catalogue's status. */
async function expectCatalogued(
  response: Response,
  method: string,
  label: string,
): Promise<ErrorCode | null> {
  const { status } = response
  if (status >= 200 && status < 300) {
    // The event stream never ends on its own: stop reading it.
    await response.body?.cancel()
    return null
  }
  expect(status, `${label} must never be a 500`).not.toBe(500)
  if (method === 'HEAD') {
    expect(
      errorCodes.some((code) => errorCatalogue[code].status === status),
      label,
    ).toBe(true)
    return null
  }
  const text = await response.text()
  const parsed = errorBodySchema.safeParse(JSON.parse(text))
  expect(parsed.success, `${label} → ${status} ${text}`).toBe(true)
  if (!parsed.success) return null
  expect(isCatalogued(parsed.data.error.code, status), `${label} → ${status} ${text}`).toBe(true)
  expect(parsed.data.error.requestId).toBe(response.headers.get('x-request-id'))
  return parsed.data.error.code
}

function request(
  method: string,
  body: string | Uint8Array | undefined,
  headers: Record<string, string>,
): RequestInit {
  const init: RequestInit = { method, headers }
  if (method !== 'GET' && method !== 'HEAD' && body !== undefined) init.body = body
  return init
}

describe('the error handler', () => {
  it('answers every odd request to every route with 2xx or a catalogue error, never a bare 500', async () => {
    const { app } = fuzzApp()
    const seen = new Set<ErrorCode>()
    for (const path of paths) {
      for (const method of methods) {
        for (const headers of headerSets) {
          for (const body of method === 'GET' || method === 'HEAD' ? [undefined] : bodies) {
            const response = await app.request(path, request(method, body, headers))
            const code = await expectCatalogued(response, method, `${method} ${path.slice(0, 60)}`)
            if (code !== null) seen.add(code)
          }
        }
      }
    }
    // The sweep reached each failure the BFF has today, so the assertions above covered them.
    expect([...seen]).toEqual(
      expect.arrayContaining([
        'csrf_failed',
        'method_not_allowed',
        'not_found',
        'payload_too_large',
        'rate_limited',
        'unsupported_media_type',
        'validation_failed',
      ]),
    )
  })

  it('answers random paths, headers and bodies with 2xx or a catalogue error', async () => {
    const { app } = fuzzApp()
    const headerName = fc.constantFrom(
      'content-type',
      'origin',
      'x-tessera-csrf',
      'accept',
      'x-request-id',
      'content-encoding',
    )
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...methods),
        fc.oneof(
          fc.constantFrom(...paths),
          fc.webPath(),
          fc.string().map((s) => `/api/${encodeURIComponent(s)}`),
        ),
        fc.dictionary(
          headerName,
          fc.oneof(
            fc.string(),
            fc.constantFrom('application/json', 'text/html', '1', csrfHeaders.origin),
          ),
        ),
        fc.oneof(fc.string(), fc.json(), fc.uint8Array({ maxLength: 600 })),
        async (method, path, randomHeaders, body) => {
          // Header values the Fetch API itself refuses never reach a server; keep the rest.
          const headers = Object.fromEntries(
            Object.entries(randomHeaders).filter(([, value]) => /^[\t\x20-\x7e]*$/.test(value)),
          )
          const response = await app.request(
            path.startsWith('/') ? path : `/${path}`,
            request(method, body, headers),
          )
          await expectCatalogued(response, method, `${method} ${path.slice(0, 60)}`)
        },
      ),
      { numRuns: 400, seed: 20260101 },
    )
  })

  it('emits only catalogue codes anywhere in the BFF source', async () => {
    const dir = new URL('./', import.meta.url)
    const files = (await readdir(dir, { recursive: true })).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    )
    const thrown = new Set<string>()
    for (const file of files) {
      const source = await readFile(new URL(file, dir), 'utf8')
      for (const match of source.matchAll(/new ApiError\(\s*['"`]([^'"`]+)['"`]/g)) {
        if (match[1] !== undefined) thrown.add(match[1])
      }
    }
    expect(thrown.size).toBeGreaterThan(5)
    for (const code of thrown)
      expect(errorCodes, `${code} is thrown but not catalogued`).toContain(code)
  })

  it('is documented: docs/errors.md lists exactly the catalogue’s codes, statuses and sentences', async () => {
    const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8')
    const rows = [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|([^|]+)\|/gm)].map(
      (match) => ({
        code: match[1] ?? '',
        status: Number(match[2]),
        message: (match[3] ?? '').trim(),
      }),
    )
    expect(rows.map((row) => row.code).sort()).toEqual([...errorCodes].sort())
    for (const row of rows) {
      const entry = errorCatalogue[row.code as ErrorCode]
      expect({ code: row.code, status: row.status, message: row.message }).toEqual({
        code: row.code,
        status: entry.status,
        message: entry.message,
      })
    }
  })
})
