import { describe, expect, it } from 'vitest'
import { remoteDescriptorSchema } from './descriptor.ts'
import { registrySnapshotSchema, snapshotRemoteSchema } from './snapshot.ts'

const descriptor = {
  name: 'billing',
  version: '1.2.3',
  contract: 1,
  basePath: '/billing',
  nav: { label: 'Billing', order: 20 },
  slots: ['header.end'],
  entry: 'assets/remoteEntry.js',
  shared: { react: '19.3.1', 'react-dom': '19.3.1' },
  files: [{ path: 'assets/remoteEntry.js', sha256: 'a'.repeat(64), bytes: 1580 }],
  builtAt: '2026-11-21T00:00:00.000Z',
}

const snapshotEntry = {
  name: 'billing',
  version: '1.1.0',
  entryUrl: 'http://localhost:8788/billing/1.1.0/assets/remoteEntry.js',
  contract: 1,
  basePath: '/billing',
  nav: null,
  slots: ['header.end'],
  previous: null,
}

describe('remote descriptors and snapshots', () => {
  it('accept a well-formed descriptor', () => {
    expect(remoteDescriptorSchema.parse(descriptor)).toEqual(descriptor)
  })

  it.each([
    ['an upper-case name', { name: 'Billing' }],
    ['a version that is not semver', { version: 'v1' }],
    ['a base path with two segments', { basePath: '/billing/plans' }],
    ['an unknown slot', { slots: ['footer'] }],
    ['a file hash that is not sha256', { files: [{ path: 'a.js', sha256: 'abc', bytes: 1 }] }],
    ['a first read on another site', { firstReads: ['https://evil.example/api/x'] }],
    ['a first read outside the API', { firstReads: ['/billing/invoices'] }],
    ['a first read that climbs out of it', { firstReads: ['/api/../admin'] }],
    ['a first read with markup in it', { firstReads: ['/api/x?a="><script>'] }],
  ])('refuse a descriptor with %s', (_what, change) => {
    expect(remoteDescriptorSchema.safeParse({ ...descriptor, ...change }).success).toBe(false)
  })

  it('accept the API reads its pages make first, with their queries', () => {
    const firstReads = ['/api/assistant/conversations?limit=20', '/api/assistant/usage']
    expect(remoteDescriptorSchema.parse({ ...descriptor, firstReads }).firstReads).toEqual(
      firstReads,
    )
    expect(snapshotRemoteSchema.parse({ ...snapshotEntry, firstReads }).firstReads).toEqual(
      firstReads,
    )
  })

  it('accept slots filled for signed-in visitors only, when the remote fills them', () => {
    const signedIn = { ...descriptor, signedInSlots: ['header.end'] }
    expect(remoteDescriptorSchema.parse(signedIn)).toEqual(signedIn)
    const other = remoteDescriptorSchema.safeParse({ ...descriptor, signedInSlots: ['home.card'] })
    expect(other.error?.issues[0]).toMatchObject({
      path: ['signedInSlots', 0],
      message: '"home.card" is not one of the slots the remote fills (slots)',
    })
    const entry = { ...snapshotEntry, signedInSlots: ['header.end'] }
    expect(snapshotRemoteSchema.parse(entry)).toEqual(entry)
  })

  it('accept an API at the remote’s own plugin path, and refuse one at another', () => {
    const api = { path: '/api/plugins/billing' }
    expect(remoteDescriptorSchema.parse({ ...descriptor, api })).toEqual({ ...descriptor, api })
    const other = remoteDescriptorSchema.safeParse({
      ...descriptor,
      api: { path: '/api/plugins/ai' },
    })
    expect(other.success).toBe(false)
    expect(other.error?.issues[0]).toMatchObject({
      path: ['api', 'path'],
      message: expect.stringMatching(/must be \/api\/plugins\/billing/),
    })
    expect(
      remoteDescriptorSchema.safeParse({
        ...descriptor,
        api: { path: '/api/plugins/billing', x: 1 },
      }).success,
    ).toBe(false)
  })

  it('accept a snapshot whose remotes name their previous good version', () => {
    const snapshot = {
      generatedAt: '2026-11-21T00:00:00.000Z',
      remotes: [
        {
          ...snapshotEntry,
          slots: [],
          previous: {
            version: '1.0.0',
            entryUrl: 'http://localhost:8788/billing/1.0.0/assets/remoteEntry.js',
          },
        },
      ],
      diagnostics: [],
    }
    expect(registrySnapshotSchema.parse(snapshot)).toEqual(snapshot)
  })

  it('accept a descriptor and a snapshot entry with the files to preload, and both without', () => {
    const withPreload = { ...descriptor, preload: ['assets/__federation_expose_Plugin-a1.js'] }
    expect(remoteDescriptorSchema.parse(withPreload)).toEqual(withPreload)
    const entry = { ...snapshotEntry, slots: [] }
    const preload = ['http://localhost:8788/billing/1.1.0/assets/__federation_expose_Plugin-a1.js']
    expect(snapshotRemoteSchema.parse({ ...entry, preload })).toEqual({ ...entry, preload })
    expect(snapshotRemoteSchema.parse(entry)).toEqual(entry)
    expect(snapshotRemoteSchema.safeParse({ ...entry, preload: ['assets/a.js'] }).success).toBe(
      false,
    )
  })
})
