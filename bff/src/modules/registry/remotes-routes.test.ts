import { registrySnapshotSchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { RegistryReadError } from './registry.ts'
import { createTestApp, remoteEntry } from '../../testing/app.ts'

async function snapshot(app: ReturnType<typeof createTestApp>['app']) {
  const response = await app.request('/api/remotes')
  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toBe('no-store')
  return registrySnapshotSchema.parse(await response.json())
}

describe('GET /api/remotes', () => {
  it('serves the registry’s remotes as a snapshot', async () => {
    const auth = remoteEntry({ name: 'auth' })
    const billing = remoteEntry({ name: 'billing' })
    const { app } = createTestApp({ registry: { remotes: [auth, billing] } })
    expect(await snapshot(app)).toEqual({
      generatedAt: '2026-01-01T00:00:00.000Z',
      remotes: [
        { ...auth, channel: 'stable' },
        { ...billing, channel: 'stable' },
      ],
      diagnostics: [],
    })
  })

  it('omits a malformed entry, names it in diagnostics, logs it, and serves the others', async () => {
    const { app, logs } = createTestApp({
      registry: {
        remotes: [
          remoteEntry({ name: 'auth' }),
          { ...remoteEntry({ name: 'billing' }), version: 'latest' },
          remoteEntry({ name: 'ai', basePath: '/assistant' }),
        ],
      },
    })
    const body = await snapshot(app)
    expect(body.remotes.map((remote) => remote.name)).toEqual(['auth', 'ai'])
    expect(body.diagnostics).toEqual([
      { remote: 'billing', message: expect.stringMatching(/billing.*version/) as string },
    ])
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'registry entry omitted', remote: 'billing' }),
    )
  })

  it('omits a duplicate name or base path with a diagnostic', async () => {
    const { app } = createTestApp({
      registry: {
        remotes: [
          remoteEntry({ name: 'billing' }),
          remoteEntry({ name: 'billing', basePath: '/other' }),
          remoteEntry({ name: 'pay', basePath: '/billing' }),
        ],
      },
    })
    const body = await snapshot(app)
    expect(body.remotes).toHaveLength(1)
    expect(body.diagnostics.map((diagnostic) => diagnostic.remote)).toEqual(['billing', 'pay'])
  })

  it('answers an empty snapshot with one diagnostic when the registry cannot be read', async () => {
    const { app } = createTestApp({
      deps: {
        registry: {
          read: async () => {
            throw new RegistryReadError('The registry is not reachable, so no remote is served.')
          },
        },
      },
    })
    const body = await snapshot(app)
    expect(body.remotes).toEqual([])
    expect(body.diagnostics).toEqual([
      { remote: null, message: expect.stringContaining('not reachable') as string },
    ])
  })

  it('follows the registry when it changes', async () => {
    const { app, setRegistry } = createTestApp({ registry: { remotes: [] } })
    expect((await snapshot(app)).remotes).toEqual([])
    setRegistry({ remotes: [remoteEntry()] })
    expect((await snapshot(app)).remotes).toHaveLength(1)
  })
})
