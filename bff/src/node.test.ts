import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LIVE_EVENT_NAME, registrySnapshotSchema } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBff } from './node.ts'
import type { RunningBff } from './node.ts'
import { remoteEntry, sseReader } from './testing.ts'

let dir: string
let bff: RunningBff

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-bff-'))
  await mkdir(join(dir, 'dist', 'assets'), { recursive: true })
  await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><title>host</title>')
  await writeFile(join(dir, 'dist', 'assets', 'app-1a2b.js'), 'export {}')
  await writeFile(join(dir, 'registry.json'), JSON.stringify({ remotes: [remoteEntry()] }))
  bff = await startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      REGISTRY_FILE: join(dir, 'registry.json'),
      HOST_DIST: join(dir, 'dist'),
      TELEMETRY_RATE_LIMIT: '2',
    },
    registryPollMs: 20,
    // Long enough that a close which had to wait for it would time the test out.
    closeGraceMs: 60_000,
  })
})

afterAll(async () => {
  await bff.close()
  await rm(dir, { recursive: true, force: true })
})

describe('startBff', () => {
  it('listens on the port it was given (0: any free one) and answers health', async () => {
    expect(bff.port).toBeGreaterThan(0)
    const response = await fetch(`${bff.url}/api/health`)
    expect(await response.json()).toMatchObject({ status: 'ok' })
  })

  it('serves the snapshot from the registry file and the built host with its CSP', async () => {
    const snapshot = registrySnapshotSchema.parse(
      await (await fetch(`${bff.url}/api/remotes`)).json(),
    )
    expect(snapshot.remotes.map((remote) => remote.name)).toEqual(['billing'])
    const page = await fetch(`${bff.url}/billing`, { headers: { accept: 'text/html' } })
    expect(page.headers.get('content-security-policy')).toContain(
      "script-src 'self' http://localhost:8788",
    )
    const asset = await fetch(`${bff.url}/assets/app-1a2b.js`)
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect(await asset.text()).toBe('export {}')
  })

  it('rate-limits telemetry by the connection’s address, not by x-forwarded-for', async () => {
    const post = (forwardedFor: string) =>
      fetch(`${bff.url}/api/telemetry/remote-errors`, {
        method: 'POST',
        headers: {
          origin: bff.url,
          'x-tessera-csrf': '1',
          'content-type': 'application/json',
          'x-forwarded-for': forwardedFor,
        },
        body: JSON.stringify({ remote: 'billing', version: '1.2.3', stage: 'entry', message: 'x' }),
      })
    expect((await post('1.1.1.1')).status).toBe(202)
    expect((await post('2.2.2.2')).status).toBe(202)
    const limited = await post('3.3.3.3')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  it('tells open event streams when the registry file changes, and ends them on close', async () => {
    const controller = new AbortController()
    const stream = sseReader(await fetch(`${bff.url}/api/events`, { signal: controller.signal }))
    await stream.next((frame) => frame.data.includes('connection.opened'))
    await writeFile(
      join(dir, 'registry.json'),
      JSON.stringify({ remotes: [remoteEntry({ version: '1.3.0' })] }),
    )
    const changed = await stream.next((frame) => frame.data.includes('registry.changed'))
    expect(changed.event).toBe(LIVE_EVENT_NAME)
    expect(JSON.parse(changed.data)).toMatchObject({
      data: { remotes: [{ name: 'billing', version: '1.3.0' }] },
    })
    await bff.close()
    await stream.closed()
    await expect(fetch(`${bff.url}/api/health`)).rejects.toThrow()
  })
})
