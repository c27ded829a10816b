import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { errorBodySchema } from '@tessera/contracts/errors'
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib'
import {
  acceptedEncoding,
  createCdnApp,
  IMMUTABLE,
  parseFilePath,
  REVALIDATE,
  type CdnFiles,
} from './app.ts'

const host = 'http://localhost:8787'
const encoder = new TextEncoder()

function memoryFiles(entries: Record<string, string>): CdnFiles & { requested: string[][] } {
  const requested: string[][] = []
  return {
    requested,
    async read(segments) {
      requested.push([...segments])
      const content = entries[segments.join('/')]
      return content === undefined ? null : encoder.encode(content)
    },
  }
}

const files = {
  'billing/1.0.0/assets/remoteEntry.js': 'export const get = () => {}',
  'billing/1.0.0/assets/plugin-abc.css': 'h1{color:red}',
  'billing/1.0.0/assets/chunk.js.map': '{"version":3}',
  'billing/1.0.0/assets/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
  'billing/1.0.0/assets/font.woff2': 'wOF2',
  'billing/1.0.0/assets/data.bin': 'raw',
  'billing/1.0.0/tessera-remote.json': '{"name":"billing"}',
  'billing/latest/assets/remoteEntry.js': 'export const get = () => {}',
  'registry.json': '{"remotes":[]}',
}

function cdn(options: { immutable?: boolean } = {}) {
  const source = memoryFiles(files)
  const app = createCdnApp({ files: source, allowedOrigins: [host], ...options })
  return { app, source }
}

describe('cdn stand-in', () => {
  it('serves a file of a published build with its bytes and length', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/1.0.0/assets/remoteEntry.js')
    expect(response.status).toBe(200)
    expect(await response.text()).toBe(files['billing/1.0.0/assets/remoteEntry.js'])
    expect(response.headers.get('Content-Length')).toBe(
      String(encoder.encode(files['billing/1.0.0/assets/remoteEntry.js']).byteLength),
    )
  })

  it('caches files under a versioned path forever, the descriptor included', async () => {
    const { app } = cdn()
    for (const path of [
      '/billing/1.0.0/assets/remoteEntry.js',
      '/billing/1.0.0/tessera-remote.json',
    ]) {
      const response = await app.request(path)
      expect(response.headers.get('Cache-Control'), path).toBe(IMMUTABLE)
    }
  })

  it('makes browsers revalidate anything outside a versioned path', async () => {
    const { app } = cdn()
    for (const path of ['/billing/latest/assets/remoteEntry.js', '/registry.json']) {
      const response = await app.request(path)
      expect(response.status, path).toBe(200)
      expect(response.headers.get('Cache-Control'), path).toBe(REVALIDATE)
    }
  })

  it('revalidates versioned paths too when told the builds are rewritten in place', async () => {
    const { app } = cdn({ immutable: false })
    const response = await app.request('/billing/1.0.0/assets/remoteEntry.js')
    expect(response.headers.get('Cache-Control')).toBe(REVALIDATE)
  })

  it('names the content type of each kind of file a build holds', async () => {
    const { app } = cdn()
    const expected: Record<string, string> = {
      '/billing/1.0.0/assets/remoteEntry.js': 'text/javascript; charset=utf-8',
      '/billing/1.0.0/assets/plugin-abc.css': 'text/css; charset=utf-8',
      '/billing/1.0.0/tessera-remote.json': 'application/json; charset=utf-8',
      '/billing/1.0.0/assets/chunk.js.map': 'application/json; charset=utf-8',
      '/billing/1.0.0/assets/logo.svg': 'image/svg+xml',
      '/billing/1.0.0/assets/font.woff2': 'font/woff2',
      '/billing/1.0.0/assets/data.bin': 'application/octet-stream',
    }
    for (const [path, contentType] of Object.entries(expected)) {
      const response = await app.request(path)
      expect(response.headers.get('Content-Type'), path).toBe(contentType)
      expect(response.headers.get('X-Content-Type-Options'), path).toBe('nosniff')
    }
  })

  it('sends an entity tag derived from the content and answers a matching If-None-Match with 304', async () => {
    const { app } = cdn()
    const first = await app.request('/billing/1.0.0/assets/plugin-abc.css')
    const etag = first.headers.get('ETag')
    const digest = createHash('sha256')
      .update(files['billing/1.0.0/assets/plugin-abc.css'])
      .digest('hex')
    expect(etag).toBe(`"${digest.slice(0, 32)}"`)

    const again = await app.request('/billing/1.0.0/assets/plugin-abc.css', {
      headers: { 'If-None-Match': `"other", W/${etag}` },
    })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('ETag')).toBe(etag)
    expect(again.headers.get('Cache-Control')).toBe(IMMUTABLE)

    const changed = await app.request('/billing/1.0.0/assets/plugin-abc.css', {
      headers: { 'If-None-Match': '"stale"' },
    })
    expect(changed.status).toBe(200)
  })

  it('gives two different files two different entity tags', async () => {
    const { app } = cdn()
    const a = await app.request('/billing/1.0.0/assets/remoteEntry.js')
    const b = await app.request('/billing/1.0.0/assets/plugin-abc.css')
    expect(a.headers.get('ETag')).not.toBe(b.headers.get('ETag'))
  })

  it('answers HEAD with the headers of GET and no body', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/1.0.0/assets/remoteEntry.js', { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('Cache-Control')).toBe(IMMUTABLE)
    expect(response.headers.get('ETag')).toMatch(/^"[0-9a-f]{32}"$/)
    expect(await response.text()).toBe('')
  })

  it('answers a missing file with the catalogue not_found error', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/9.9.9/assets/remoteEntry.js')
    expect(response.status).toBe(404)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('not_found')
    expect(response.headers.get('Cache-Control')).toBe(REVALIDATE)
  })

  it('refuses paths that try to climb out of the root without reading anything', async () => {
    const { app, source } = cdn()
    const attempts = [
      '/billing/1.0.0/..%2f..%2f..%2fetc%2fpasswd',
      '/billing/1.0.0/%2e%2e%5c%2e%2e%5csecret',
      '/billing/1.0.0/assets/%2e%2e',
      '/billing/1.0.0/assets/%00remoteEntry.js',
      '/billing/1.0.0/assets/%E0%A4%A',
      '/billing/1.0.0/assets//remoteEntry.js',
      '/billing/1.0.0/',
      '/',
    ]
    for (const path of attempts) {
      const response = await app.request(path)
      expect(response.status, path).toBe(404)
    }
    // The URL parser itself folds `..` and `%2e%2e` segments, which can then only name files
    // inside the root.
    for (const path of [
      '/billing/1.0.0/../../registry.json',
      '/billing/%2e%2e/%2e%2e/registry.json',
    ]) {
      const folded = await app.request(path)
      expect(folded.status, path).toBe(200)
    }
    expect(source.requested.flat()).not.toContain('..')
    expect(source.requested.flat().some((segment) => segment.includes('/'))).toBe(false)
  })

  it('echoes an allowed host origin and varies on Origin', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/1.0.0/assets/remoteEntry.js', {
      headers: { Origin: host },
    })
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(host)
    expect(response.headers.get('Vary')).toContain('Origin')
  })

  it('gives no CORS header to an origin that is not a host', async () => {
    const { app } = cdn()
    for (const origin of ['http://evil.example', 'http://localhost:8788', 'null']) {
      const response = await app.request('/billing/1.0.0/assets/remoteEntry.js', {
        headers: { Origin: origin },
      })
      expect(response.status, origin).toBe(200)
      expect(response.headers.get('Access-Control-Allow-Origin'), origin).toBeNull()
      expect(response.headers.get('Vary'), origin).toContain('Origin')
    }
  })

  it('keeps the CORS header on not-found answers so the host can read the status', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/9.9.9/assets/remoteEntry.js', {
      headers: { Origin: host },
    })
    expect(response.status).toBe(404)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(host)
  })

  it('answers a preflight from a host origin with the methods and headers it may use', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/1.0.0/assets/remoteEntry.js', {
      method: 'OPTIONS',
      headers: {
        Origin: host,
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-tessera-trace',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(host)
    expect(response.headers.get('Access-Control-Allow-Methods')).toBe('GET, HEAD, OPTIONS')
    expect(response.headers.get('Access-Control-Allow-Headers')).toBe('x-tessera-trace')
  })

  it('answers a preflight from another origin without granting anything', async () => {
    const { app } = cdn()
    const response = await app.request('/billing/1.0.0/assets/remoteEntry.js', {
      method: 'OPTIONS',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'GET' },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBeNull()
    expect(response.headers.get('Access-Control-Allow-Methods')).toBeNull()
  })

  it('refuses writes with method_not_allowed and the methods it does allow', async () => {
    const { app } = cdn()
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const response = await app.request('/billing/1.0.0/assets/remoteEntry.js', { method })
      expect(response.status, method).toBe(405)
      expect(response.headers.get('Allow'), method).toBe('GET, HEAD, OPTIONS')
      expect(errorBodySchema.parse(await response.json()).error.code).toBe('method_not_allowed')
    }
  })
})

describe('parseFilePath', () => {
  it('decodes each segment of a path', () => {
    expect(parseFilePath('/billing/1.0.0/assets/a%20b.js')).toEqual([
      'billing',
      '1.0.0',
      'assets',
      'a b.js',
    ])
  })

  it('returns null for a segment that decodes to a separator or a dot-segment', () => {
    expect(parseFilePath('/a/..%2Fb')).toBeNull()
    expect(parseFilePath('/a/%2E%2E')).toBeNull()
    expect(parseFilePath('/a/.')).toBeNull()
    expect(parseFilePath('/a/b%5Cc')).toBeNull()
  })
})

describe('compression', () => {
  it('sends text gzipped to a browser that takes it, with its own entity tag, and images as they are', async () => {
    const script = 'export const answer = 42;\n'.repeat(100)
    const app = createCdnApp({
      files: {
        read: async (segments) =>
          segments.join('/') === 'billing/1.0.0/assets/remoteEntry.js'
            ? new TextEncoder().encode(script)
            : segments.join('/') === 'billing/1.0.0/logo.png'
              ? new Uint8Array(600)
              : null,
      },
      allowedOrigins: [],
    })
    const get = (path: string, headers: Record<string, string> = {}) =>
      app.request(`/billing/1.0.0/${path}`, { headers })

    const gzip = await get('assets/remoteEntry.js', { 'Accept-Encoding': 'gzip, deflate, br' })
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    expect(gzip.headers.get('vary')).toContain('Accept-Encoding')
    const bytes = new Uint8Array(await gzip.arrayBuffer())
    expect(gzip.headers.get('content-length')).toBe(String(bytes.byteLength))
    expect(bytes.byteLength).toBeLessThan(script.length / 10)
    expect(gunzipSync(bytes).toString()).toBe(script)

    const raw = await get('assets/remoteEntry.js')
    expect(raw.headers.get('content-encoding')).toBeNull()
    expect(await raw.text()).toBe(script)
    expect(raw.headers.get('etag')).not.toBe(gzip.headers.get('etag'))

    const revalidated = await get('assets/remoteEntry.js', {
      'Accept-Encoding': 'gzip',
      'If-None-Match': gzip.headers.get('etag') ?? '',
    })
    expect(revalidated.status).toBe(304)
    expect(
      (await get('assets/remoteEntry.js', { 'Accept-Encoding': 'gzip;q=0' })).headers.get(
        'content-encoding',
      ),
    ).toBeNull()

    const image = await get('logo.png', { 'Accept-Encoding': 'gzip' })
    expect(image.headers.get('content-encoding')).toBeNull()
    expect((await image.arrayBuffer()).byteLength).toBe(600)
  })

  it('sends text brotli where the runtime has it, to a browser that takes it', async () => {
    const script = 'export const answer = 42;\n'.repeat(100)
    const app = createCdnApp({
      files: { read: async () => new TextEncoder().encode(script) },
      allowedOrigins: [],
      brotli: async (body) => new Uint8Array(brotliCompressSync(body)),
    })
    const get = (headers: Record<string, string>) =>
      app.request('/billing/1.0.0/assets/remoteEntry.js', { headers })
    const br = await get({ 'Accept-Encoding': 'gzip, deflate, br' })
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(brotliDecompressSync(new Uint8Array(await br.arrayBuffer())).toString()).toBe(script)
    const gzip = await get({ 'Accept-Encoding': 'gzip' })
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(new Uint8Array(await gzip.arrayBuffer())).toString()).toBe(script)
    // Each encoding has its own entity tag, so a cache never answers one with the other.
    expect(br.headers.get('etag')).not.toBe(gzip.headers.get('etag'))
    expect(
      (await get({ 'Accept-Encoding': 'br', 'If-None-Match': br.headers.get('etag') ?? '' }))
        .status,
    ).toBe(304)
  })

  it('reads Accept-Encoding with its q-values', () => {
    const both = ['br', 'gzip'] as const
    expect(acceptedEncoding('gzip', both)).toBe('gzip')
    expect(acceptedEncoding('gzip, deflate, br', both)).toBe('br')
    expect(acceptedEncoding('br;q=0.5, gzip', both)).toBe('gzip')
    expect(acceptedEncoding('br, *;q=0.5', ['gzip'])).toBe('gzip')
    expect(acceptedEncoding('gzip;q=0, *', ['gzip'])).toBeNull()
    expect(acceptedEncoding('br', ['gzip'])).toBeNull()
    expect(acceptedEncoding(undefined, both)).toBeNull()
  })
})
