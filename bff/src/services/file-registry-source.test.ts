import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { waitFor } from '../testing.ts'
import { createFileRegistrySource } from './file-registry-source.ts'
import { RegistryReadError } from './registry.ts'

let dir: string
let file: string

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tessera-registry-'))
  file = join(dir, 'registry.json')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('createFileRegistrySource', () => {
  it('reads and parses the file', async () => {
    await writeFile(file, '{"remotes":[{"name":"auth"}]}')
    expect(await createFileRegistrySource({ file }).read()).toEqual({ remotes: [{ name: 'auth' }] })
  })

  it('says there is no registry yet when the file is missing, without naming the directory', async () => {
    const failure = await createFileRegistrySource({ file })
      .read()
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(RegistryReadError)
    expect((failure as Error).message).toContain('no registry file (registry.json)')
    expect((failure as Error).message).not.toContain(dir)
  })

  it('says the file is not valid JSON', async () => {
    await writeFile(file, '{"remotes": [')
    const failure = await createFileRegistrySource({ file })
      .read()
      .catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(RegistryReadError)
    expect((failure as Error).message).toContain('not valid JSON')
  })

  it('re-reads the file only when its modification time or size changes', async () => {
    await writeFile(file, '{"v":1}')
    const source = createFileRegistrySource({ file })
    expect(await source.read()).toEqual({ v: 1 })
    // Same size, same mtime: the cached content is served.
    const stamp = new Date('2026-01-01T00:00:00Z')
    await utimes(file, stamp, stamp)
    expect(await source.read()).toEqual({ v: 1 })
    await writeFile(file, '{"v":2}')
    await utimes(file, stamp, stamp)
    expect(await source.read()).toEqual({ v: 1 })
    const later = new Date('2026-01-01T00:00:05Z')
    await utimes(file, later, later)
    expect(await source.read()).toEqual({ v: 2 })
  })

  it('notices the file being created and changed', async () => {
    const source = createFileRegistrySource({ file, pollMs: 20 })
    let changes = 0
    const stop = source.watch?.(() => (changes += 1))
    try {
      await writeFile(file, '{"remotes":[]}')
      await waitFor(() => (changes >= 1 ? true : undefined), { what: 'the creation' })
      await writeFile(file, '{"remotes":[1]}')
      await waitFor(() => (changes >= 2 ? true : undefined), { what: 'the change' })
    } finally {
      stop?.()
    }
  })
})
