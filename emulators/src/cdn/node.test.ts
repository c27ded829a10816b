import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IMMUTABLE } from './app.ts'
import { directoryFiles, startCdn, type RunningCdn } from './node.ts'

const host = 'http://localhost:5173'
let dir: string
let outside: string
let cdn: RunningCdn

/** A GET with the path sent exactly as written (fetch would normalise it first). */
function rawGet(url: string, rawPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url)
    const req = request({ hostname: target.hostname, port: target.port, path: rawPath }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tessera-cdn-'))
  outside = await mkdtemp(path.join(tmpdir(), 'tessera-cdn-outside-'))
  await mkdir(path.join(dir, 'billing/1.0.0/assets'), { recursive: true })
  await writeFile(path.join(dir, 'billing/1.0.0/assets/remoteEntry.js'), 'export {}\n')
  await writeFile(path.join(outside, 'secret.txt'), 'do not serve')
  await symlink(path.join(outside, 'secret.txt'), path.join(dir, 'billing/1.0.0/assets/leak.txt'))
  cdn = await startCdn({ port: 0, root: dir, allowedOrigins: [host] })
})

afterAll(async () => {
  await cdn.close()
  await rm(dir, { recursive: true, force: true })
  await rm(outside, { recursive: true, force: true })
})

describe('startCdn', () => {
  it('serves a published build over HTTP on the port it was given', async () => {
    const response = await fetch(`${cdn.url}/billing/1.0.0/assets/remoteEntry.js`, {
      headers: { Origin: host },
    })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('export {}\n')
    expect(response.headers.get('Cache-Control')).toBe(IMMUTABLE)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe(host)
  })

  it('refuses a raw path that climbs out of its root', async () => {
    expect(await rawGet(cdn.url, '/billing/1.0.0/../../../etc/passwd')).toBe(404)
    expect(await rawGet(cdn.url, '/billing/1.0.0/..%2f..%2f..%2fetc%2fpasswd')).toBe(404)
  })

  it('refuses a symlink that points outside its root', async () => {
    const response = await fetch(`${cdn.url}/billing/1.0.0/assets/leak.txt`)
    expect(response.status).toBe(404)
  })
})

describe('directoryFiles', () => {
  it('reads a file by its segments and returns null for folders and missing files', async () => {
    const files = directoryFiles(dir)
    const entry = await files.read(['billing', '1.0.0', 'assets', 'remoteEntry.js'])
    expect(new TextDecoder().decode(entry ?? new Uint8Array())).toBe('export {}\n')
    expect(await files.read(['billing', '1.0.0', 'assets'])).toBeNull()
    expect(await files.read(['billing', '1.0.0', 'missing.js'])).toBeNull()
  })

  it('returns null for segments that would leave the folder even if the app let them through', async () => {
    const files = directoryFiles(path.join(dir, 'billing'))
    expect(await files.read(['..', path.basename(outside), 'secret.txt'])).toBeNull()
    expect(await files.read(['..', '..', path.basename(outside), 'secret.txt'])).toBeNull()
  })
})
