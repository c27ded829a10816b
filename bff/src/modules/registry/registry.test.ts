import { registrySnapshotSchema } from '@tessera/contracts'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { createManualClock, remoteEntry } from '../../testing/app.ts'
import { buildSnapshot, createSnapshotReader, RegistryReadError } from './registry.ts'

const at = '2026-01-01T00:00:00.000Z'

describe('buildSnapshot', () => {
  it('serves every well-formed entry in the order of the file', () => {
    const auth = remoteEntry({ name: 'auth' })
    const billing = remoteEntry({ name: 'billing' })
    const snapshot = buildSnapshot({ remotes: [auth, billing] }, at)
    expect(registrySnapshotSchema.parse(snapshot)).toEqual({
      generatedAt: at,
      remotes: [
        { ...auth, channel: 'stable' },
        { ...billing, channel: 'stable' },
      ],
      diagnostics: [],
    })
  })

  it('leaves a remote for operators out for anyone else, listing it as restricted', () => {
    const billing = remoteEntry({ name: 'billing' })
    const console = {
      ...remoteEntry({ name: 'console', basePath: '/console' }),
      audience: 'operators',
    }
    const visitor = registrySnapshotSchema.parse(
      buildSnapshot({ remotes: [billing, console] }, at, () => false, false),
    )
    expect(visitor.remotes.map((remote) => remote.name)).toEqual(['billing'])
    expect(visitor.restricted).toEqual([{ name: 'console', basePath: '/console' }])
    // Its canary is never served either: the entry has no URL for them at all.
    expect(JSON.stringify(visitor)).not.toContain('localhost:8788/console')
    const operator = buildSnapshot({ remotes: [billing, console] }, at, () => false, true)
    expect(operator.remotes.map((remote) => remote.name)).toEqual(['billing', 'console'])
    expect(operator.restricted).toBeUndefined()
  })

  it('omits a malformed entry, naming it and the problem, and serves the others', () => {
    const snapshot = buildSnapshot(
      {
        remotes: [
          remoteEntry({ name: 'auth' }),
          { ...remoteEntry({ name: 'billing' }), entryUrl: 'not a url' },
        ],
      },
      at,
    )
    expect(snapshot.remotes.map((remote) => remote.name)).toEqual(['auth'])
    expect(snapshot.diagnostics).toHaveLength(1)
    expect(snapshot.diagnostics[0]?.remote).toBe('billing')
    expect(snapshot.diagnostics[0]?.message).toMatch(/^Remote "billing" was left out .*entryUrl/)
  })

  it('names a malformed entry without a name by its position', () => {
    const snapshot = buildSnapshot({ remotes: [remoteEntry(), 42, { name: 7 }] }, at)
    expect(snapshot.remotes).toHaveLength(1)
    expect(snapshot.diagnostics.map((diagnostic) => diagnostic.remote)).toEqual([null, null])
    expect(snapshot.diagnostics[0]?.message).toMatch(/^The entry at position 2 was left out/)
    expect(snapshot.diagnostics[1]?.message).toMatch(/^The entry at position 3 was left out/)
  })

  it('keeps the first of two entries with the same name or base path', () => {
    const first = remoteEntry({ name: 'billing' })
    const sameName = remoteEntry({ name: 'billing', version: '9.9.9', basePath: '/pay' })
    const samePath = remoteEntry({ name: 'payments', basePath: '/billing' })
    const snapshot = buildSnapshot({ remotes: [first, sameName, samePath] }, at)
    expect(snapshot.remotes).toEqual([{ ...first, channel: 'stable' }])
    expect(snapshot.diagnostics).toEqual([
      { remote: 'billing', message: expect.stringContaining('same name') as string },
      { remote: 'payments', message: expect.stringContaining('/billing') as string },
    ])
  })

  it('serves a remote’s canary to the viewers it picks, with stable as their previous version', () => {
    const stable = remoteEntry({ name: 'billing', version: '1.0.0' })
    const canary = remoteEntry({
      name: 'billing',
      version: '1.1.0',
      entryUrl: 'https://cdn.example.com/billing/1.1.0/assets/remoteEntry.js',
    })
    const content = { remotes: [{ ...stable, canary: { percentage: 30, remote: canary } }] }
    const picked: [string, number][] = []
    const inCanary = buildSnapshot(content, at, (remote, percentage) => {
      picked.push([remote, percentage])
      return true
    })
    expect(picked).toEqual([['billing', 30]])
    expect(inCanary.remotes).toEqual([
      {
        ...canary,
        channel: 'canary',
        previous: { version: '1.0.0', entryUrl: stable.entryUrl },
      },
    ])
    const outside = buildSnapshot(content, at, () => false)
    expect(outside.remotes).toEqual([{ ...stable, channel: 'stable' }])
    expect(buildSnapshot(content, at).remotes[0]?.version).toBe('1.0.0')
  })

  it('serves stable, with a diagnostic, when the canary is malformed or stands for another remote', () => {
    const stable = remoteEntry({ name: 'billing' })
    for (const canary of [
      { percentage: 0, remote: remoteEntry({ name: 'billing' }) },
      { percentage: 50, remote: remoteEntry({ name: 'billing', basePath: '/pay' }) },
    ]) {
      const snapshot = buildSnapshot({ remotes: [{ ...stable, canary }] }, at, () => true)
      expect(snapshot.remotes).toEqual([{ ...stable, channel: 'stable' }])
      expect(snapshot.diagnostics).toEqual([
        { remote: 'billing', message: expect.stringMatching(/^The canary of "billing"/) as string },
      ])
    }
  })

  it('passes on the problems the source found itself', () => {
    const snapshot = buildSnapshot(
      { remotes: [], diagnostics: [{ remote: 'ai', message: 'Remote "ai" was left out.' }] },
      at,
    )
    expect(snapshot.diagnostics).toEqual([{ remote: 'ai', message: 'Remote "ai" was left out.' }])
  })

  it('serves nothing, with one diagnostic, when there is no remotes list', () => {
    for (const content of [null, [], { remotes: 'all' }, 'text']) {
      const snapshot = buildSnapshot(content, at)
      expect(snapshot.remotes).toEqual([])
      expect(snapshot.diagnostics).toEqual([
        { remote: null, message: expect.stringContaining('"remotes"') as string },
      ])
    }
  })
})

describe('createSnapshotReader', () => {
  function setup(read: () => Promise<unknown>) {
    const lines: { level: string; msg: string }[] = []
    const logger = createLogger({
      level: 'debug',
      write: (line) => lines.push(JSON.parse(line) as { level: string; msg: string }),
    })
    const reader = createSnapshotReader({ registry: { read }, logger, clock: createManualClock() })
    return {
      lines,
      readSnapshot: () => reader.build({}),
    }
  }

  it('turns a registry that cannot be read into an empty snapshot with its sentence', async () => {
    const { readSnapshot } = setup(async () => {
      throw new RegistryReadError('There is no registry file yet.')
    })
    expect(await readSnapshot()).toEqual({
      generatedAt: at,
      remotes: [],
      diagnostics: [{ remote: null, message: 'There is no registry file yet.' }],
    })
  })

  it('hides an unexpected read failure behind a generic sentence and logs it as an error', async () => {
    const { readSnapshot, lines } = setup(async () => {
      throw new Error('EACCES /secret/path')
    })
    const snapshot = await readSnapshot()
    expect(snapshot.diagnostics[0]?.message).not.toContain('/secret/path')
    expect(
      lines.some((line) => line.level === 'error' && line.msg === 'registry read failed'),
    ).toBe(true)
  })

  it('logs omitted entries as warnings once, not on every request', async () => {
    const { readSnapshot, lines } = setup(async () => ({ remotes: [{ name: 'broken' }] }))
    await readSnapshot()
    await readSnapshot()
    const warnings = lines.filter((line) => line.level === 'warn')
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ msg: 'registry entry omitted', remote: 'broken' })
  })
})
