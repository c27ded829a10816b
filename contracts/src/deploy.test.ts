import { describe, expect, it } from 'vitest'
import type { RemoteDescriptor } from './descriptor.ts'
import {
  buildFilePathSchema,
  compatibilityProblems,
  deployDescriptorSchema,
  descriptorDigest,
} from './deploy.ts'
import { CONTRACT_MAJOR } from './plugin.ts'

const descriptor: RemoteDescriptor = {
  name: 'billing',
  version: '1.0.0',
  contract: CONTRACT_MAJOR,
  basePath: '/billing',
  nav: { label: 'Billing', order: 2 },
  slots: [],
  entry: 'assets/remoteEntry.js',
  shared: { react: '19.3.1', 'react-dom': '19.3.1' },
  files: [
    { path: 'assets/remoteEntry.js', sha256: 'a'.repeat(64), bytes: 10 },
    { path: 'assets/plugin.js', sha256: 'b'.repeat(64), bytes: 20 },
  ],
  builtAt: '2026-01-01T00:00:00.000Z',
}

const host = { contract: CONTRACT_MAJOR, shared: { react: 19, 'react-dom': 19 } }

describe('descriptorDigest', () => {
  it('is the same for the same build under another version label or build time', async () => {
    const digest = await descriptorDigest(descriptor)
    expect(digest).toMatch(/^[0-9a-f]{64}$/)
    expect(
      await descriptorDigest({ ...descriptor, version: '1.1.0', builtAt: '2027-01-01T00:00:00Z' }),
    ).toBe(digest)
    expect(await descriptorDigest({ ...descriptor, files: [...descriptor.files].reverse() })).toBe(
      digest,
    )
  })

  it('changes with any file’s bytes or any fact the host reads', async () => {
    const digest = await descriptorDigest(descriptor)
    const [entry, plugin] = descriptor.files
    if (entry === undefined || plugin === undefined) throw new Error('fixture has two files')
    for (const other of [
      { ...descriptor, files: [entry, { ...plugin, sha256: 'c'.repeat(64) }] },
      { ...descriptor, basePath: '/pay' },
      { ...descriptor, nav: null },
      { ...descriptor, preload: ['assets/plugin.js'] },
    ]) {
      expect(await descriptorDigest(other)).not.toBe(digest)
    }
  })
})

describe('compatibilityProblems', () => {
  it('accepts a build for the host’s contract and React majors', () => {
    expect(compatibilityProblems(descriptor, host)).toEqual([])
  })

  it('names each mismatch in a sentence', () => {
    const problems = compatibilityProblems(
      { ...descriptor, contract: 2, shared: { react: '18.2.0' } },
      host,
    )
    expect(problems.map((problem) => problem.path)).toEqual([
      'descriptor.contract',
      'descriptor.shared.react',
      'descriptor.shared.react-dom',
    ])
    expect(problems[1]?.message).toBe(
      'billing 1.0.0 is built against react 18.2.0, but the host shares react 19. Build it with react 19.x.',
    )
  })
})

describe('deploy descriptor paths', () => {
  it('accepts build paths and refuses ones that could leave the build or change the URL', () => {
    for (const ok of ['assets/remoteEntry.js', 'a.css', 'assets/x_y-1.2.js']) {
      expect(buildFilePathSchema.safeParse(ok).success, ok).toBe(true)
    }
    for (const bad of [
      '../x.js',
      'assets/../../x.js',
      '/abs.js',
      './a.js',
      'a//b.js',
      'a.js?x',
      'a b.js',
      '',
    ]) {
      expect(buildFilePathSchema.safeParse(bad).success, bad).toBe(false)
    }
    expect(deployDescriptorSchema.safeParse(descriptor).success).toBe(true)
    expect(deployDescriptorSchema.safeParse({ ...descriptor, entry: '../entry.js' }).success).toBe(
      false,
    )
  })
})
