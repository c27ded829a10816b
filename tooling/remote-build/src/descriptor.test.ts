import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { CONTRACT_MAJOR, remoteDescriptorSchema } from '@tessera/contracts'
import {
  buildDescriptor,
  hashFiles,
  REMOTE_ENTRY,
  writeDescriptor,
  type RemoteFacts,
} from './descriptor.ts'

// sha256 of the ASCII strings 'hello' and '' (empty), computed outside this code base.
const SHA256_HELLO = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'
const SHA256_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

const facts: RemoteFacts = {
  name: 'billing',
  version: '1.2.3',
  basePath: '/billing',
  nav: { label: 'Billing', order: 20 },
  slots: ['header.end'],
  shared: { react: '19.3.1', 'react-dom': '19.3.1' },
}

let dir: string

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tessera-descriptor-'))
  await mkdir(path.join(dir, 'assets/nested'), { recursive: true })
  await writeFile(path.join(dir, REMOTE_ENTRY), 'hello')
  await writeFile(path.join(dir, 'assets/nested/empty.css'), '')
  await writeFile(path.join(dir, 'assets/plugin-abc.js'), 'export default 1\n')
})

afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('hashFiles', () => {
  it('lists every file with its sha256 and size, by forward-slash path in order', async () => {
    const files = await hashFiles(dir)
    expect(files).toEqual([
      { path: 'assets/nested/empty.css', sha256: SHA256_EMPTY, bytes: 0 },
      { path: 'assets/plugin-abc.js', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: 17 },
      { path: 'assets/remoteEntry.js', sha256: SHA256_HELLO, bytes: 5 },
    ])
  })

  it('leaves out an existing descriptor', async () => {
    await writeFile(path.join(dir, 'tessera-remote.json'), '{}')
    const files = await hashFiles(dir)
    expect(files.map((file) => file.path)).not.toContain('tessera-remote.json')
  })
})

describe('writeDescriptor', () => {
  it('writes a descriptor the contract schema accepts, with the current contract major', async () => {
    await writeDescriptor(dir, facts)
    const written: unknown = JSON.parse(
      await readFile(path.join(dir, 'tessera-remote.json'), 'utf8'),
    )
    const descriptor = remoteDescriptorSchema.parse(written)
    expect(descriptor).toMatchObject({
      name: 'billing',
      version: '1.2.3',
      contract: CONTRACT_MAJOR,
      basePath: '/billing',
      nav: { label: 'Billing', order: 20 },
      slots: ['header.end'],
      entry: 'assets/remoteEntry.js',
      shared: { react: '19.3.1', 'react-dom': '19.3.1' },
    })
    expect(descriptor.files).toHaveLength(3)
    expect(Number.isNaN(Date.parse(descriptor.builtAt))).toBe(false)
  })

  it('hashes the same bytes again to the same descriptor files', async () => {
    const first = await writeDescriptor(dir, facts)
    const second = await writeDescriptor(dir, facts)
    expect(second.files).toEqual(first.files)
  })
})

describe('buildDescriptor', () => {
  const files = [{ path: REMOTE_ENTRY, sha256: SHA256_HELLO, bytes: 5 }]

  it('refuses facts the schema rejects and names the field', () => {
    expect(() => buildDescriptor({ ...facts, basePath: 'billing' }, files)).toThrow(/basePath/)
    expect(() => buildDescriptor({ ...facts, version: 'one' }, files)).toThrow(/version/)
    expect(() => buildDescriptor({ ...facts, name: 'Billing!' }, files)).toThrow(/name/)
  })

  it('refuses a build without the federation entry', () => {
    expect(() =>
      buildDescriptor(facts, [{ path: 'assets/other.js', sha256: SHA256_HELLO, bytes: 5 }]),
    ).toThrow(/remoteEntry\.js/)
  })

  it('records the files to preload, when each is a file of the build', () => {
    const withChunk = [...files, { path: 'assets/plugin-abc.js', sha256: SHA256_EMPTY, bytes: 0 }]
    const descriptor = buildDescriptor(facts, withChunk, new Date(0), ['assets/plugin-abc.js'])
    expect(descriptor.preload).toEqual(['assets/plugin-abc.js'])
    expect(buildDescriptor(facts, withChunk, new Date(0)).preload).toBeUndefined()
  })

  it('refuses a preload list that names a file the build did not emit', () => {
    expect(() => buildDescriptor(facts, files, new Date(0), ['assets/gone.js'])).toThrow(
      /preload names files the build did not emit: assets\/gone\.js/,
    )
  })

  it('records the remote’s own API, and only under its own name', () => {
    const descriptor = buildDescriptor({ ...facts, api: { path: '/api/plugins/billing' } }, files)
    expect(descriptor.api).toEqual({ path: '/api/plugins/billing' })
    expect(buildDescriptor(facts, files).api).toBeUndefined()
    expect(() => buildDescriptor({ ...facts, api: { path: '/api/plugins/notes' } }, files)).toThrow(
      /api\.path: must be \/api\/plugins\/billing/,
    )
    expect(() =>
      buildDescriptor({ ...facts, api: { path: 'https://evil.example' } }, files),
    ).toThrow(/api\.path/)
  })

  it('records a remote for operators only, and leaves the audience out for everyone', () => {
    expect(buildDescriptor({ ...facts, audience: 'operators' }, files).audience).toBe('operators')
    expect(buildDescriptor(facts, files).audience).toBeUndefined()
  })

  it('records a slot-less, nav-less remote', () => {
    const descriptor = buildDescriptor({ ...facts, nav: null, slots: [] }, files, new Date(0))
    expect(descriptor.nav).toBeNull()
    expect(descriptor.slots).toEqual([])
    expect(descriptor.builtAt).toBe('1970-01-01T00:00:00.000Z')
  })
})
