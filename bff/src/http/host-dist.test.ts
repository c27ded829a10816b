import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHostDist, fileForPath } from './host-dist.ts'

let dist: string

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'tessera-dist-'))
  await mkdir(join(dist, 'assets'))
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>Tessera</title>')
  await writeFile(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)')
  await writeFile(join(dist, 'favicon.svg'), '<svg/>')
  // What the build writes beside a text file (host/precompress.ts): here only for the script.
  await writeFile(join(dist, 'assets', 'index-abc123.js.br'), brotliCompressSync('console.log(1)'))
  await writeFile(join(dist, 'assets', 'index-abc123.js.gz'), gzipSync('console.log(1)'))
})
afterAll(async () => {
  await rm(dist, { recursive: true, force: true })
})

function serveApp() {
  const assets = createHostDist(dist)
  return new Hono().get('*', async (c) => (await assets.serve(c)) ?? c.text('fell through', 404))
}

describe('fileForPath', () => {
  it('refuses paths that could leave the root', () => {
    for (const path of [
      '/../etc/passwd',
      '/assets/%2e%2e/%2e%2e/x',
      '/a//b',
      '/a%5cb',
      '/%00',
      '/%E0%A4%A',
    ]) {
      expect(fileForPath('/srv/dist', path)).toBeNull()
    }
    expect(fileForPath('/srv/dist', '/assets/a.js')).toBe('/srv/dist/assets/a.js')
  })
})

describe('createHostDist', () => {
  it('serves hashed assets as immutable for a year', async () => {
    const response = await serveApp().request('/assets/index-abc123.js')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(response.headers.get('content-type')).toContain('javascript')
    expect(await response.text()).toBe('console.log(1)')
  })

  it('revalidates files outside /assets', async () => {
    const response = await serveApp().request('/favicon.svg')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(response.headers.get('content-type')).toContain('image/svg+xml')
  })

  it('answers nothing for a missing file or a directory', async () => {
    expect((await serveApp().request('/assets/missing.js')).status).toBe(404)
    expect((await serveApp().request('/assets')).status).toBe(404)
  })

  it('reads index.html, or null when the host is not built', async () => {
    expect(await createHostDist(dist).indexHtml()).toContain('<title>Tessera</title>')
    expect(await createHostDist(join(dist, 'nowhere')).indexHtml()).toBeNull()
  })

  it('sends the precompressed copy the browser accepts, and says it varies by it', async () => {
    const get = (acceptEncoding?: string) =>
      serveApp().request('/assets/index-abc123.js', {
        headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
      })
    const br = await get('gzip, deflate, br')
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(br.headers.get('vary')).toBe('Accept-Encoding')
    const brBytes = Buffer.from(await br.arrayBuffer())
    expect(br.headers.get('content-length')).toBe(String(brBytes.byteLength))
    expect(brotliDecompressSync(brBytes).toString()).toBe('console.log(1)')

    const gzip = await get('gzip;q=1, br;q=0')
    expect(gzip.headers.get('content-encoding')).toBe('gzip')
    expect(gunzipSync(Buffer.from(await gzip.arrayBuffer())).toString()).toBe('console.log(1)')

    for (const refused of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
      const raw = await get(refused)
      expect(raw.headers.get('content-encoding'), String(refused)).toBeNull()
      expect(await raw.text()).toBe('console.log(1)')
    }
    // A text file with no copy beside it goes out raw, still varying by the header.
    const svg = await serveApp().request('/favicon.svg', { headers: { 'accept-encoding': 'br' } })
    expect(svg.headers.get('content-encoding')).toBeNull()
    expect(svg.headers.get('vary')).toBe('Accept-Encoding')
    expect(await svg.text()).toBe('<svg/>')
  })
})
