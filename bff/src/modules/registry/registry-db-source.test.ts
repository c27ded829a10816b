import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { waitFor } from '../../testing/app.ts'
import { createDbRegistrySource, snapshotEntryOf } from './registry-db-source.ts'

let sql: Sql

beforeAll(async () => {
  sql = await createBffTestDatabase()
}, databaseSetupTimeout)

afterAll(async () => {
  await sql.close()
})

const descriptor = (version: string) => ({
  name: 'ai',
  version,
  contract: 1,
  basePath: '/assistant',
  nav: { label: 'Assistant', order: 3 },
  slots: [],
  entry: 'assets/remoteEntry.js',
  shared: { react: '19.3.1', 'react-dom': '19.3.1' },
  files: [{ path: 'assets/remoteEntry.js', sha256: 'b'.repeat(64), bytes: 1 }],
  preload: ['assets/remoteEntry.js'],
  routePreload: ['assets/remoteEntry.js'],
  builtAt: '2026-01-01T00:00:00.000Z',
})

/** Writes rows as another process would, event included (the change marker). */
async function register(version: string, stored: unknown = descriptor(version)) {
  await sql.transaction(async (tx) => {
    await tx.query(`insert into public.remotes (name) values ('ai') on conflict do nothing`)
    await tx.query(
      `insert into public.remote_versions (remote_name, version, descriptor, content_sha256, base_url)
       values ('ai', $1, $2::jsonb, $3, $4)`,
      [version, JSON.stringify(stored), 'c'.repeat(64), `https://cdn.example.com/ai/${version}`],
    )
    await tx.query(
      `insert into public.remote_deploy_events (remote_name, kind, version, actor) values ('ai', 'published', $1, 'test')`,
      [version],
    )
  })
}

async function makeStable(version: string, revision: number) {
  await sql.transaction(async (tx) => {
    await tx.query(
      `insert into public.remote_channels (remote_name, channel, version) values ('ai', 'stable', $1)
       on conflict (remote_name, channel) do update set version = excluded.version, revision = remote_channels.revision + 1`,
      [version],
    )
    await tx.query(
      `update public.remote_versions set last_stable_at = now(), last_stable_revision = $2 where remote_name = 'ai' and version = $1`,
      [version, revision],
    )
    await tx.query(
      `insert into public.remote_deploy_events (remote_name, kind, version, actor) values ('ai', 'promoted', $1, 'test')`,
      [version],
    )
  })
}

describe('snapshotEntryOf', () => {
  it('makes the entry, preload and routePreload URLs absolute against where the build is stored', () => {
    const built = snapshotEntryOf('ai', {
      version: '1.0.0',
      baseUrl: 'https://cdn.example.com/ai/1.0.0',
      descriptor: descriptor('1.0.0'),
    })
    expect(built).toEqual({
      entry: {
        name: 'ai',
        version: '1.0.0',
        entryUrl: 'https://cdn.example.com/ai/1.0.0/assets/remoteEntry.js',
        contract: 1,
        basePath: '/assistant',
        nav: { label: 'Assistant', order: 3 },
        slots: [],
        previous: null,
        preload: ['https://cdn.example.com/ai/1.0.0/assets/remoteEntry.js'],
        routePreload: ['https://cdn.example.com/ai/1.0.0/assets/remoteEntry.js'],
      },
    })
  })

  it('turns a descriptor that no longer reads into a sentence', () => {
    const built = snapshotEntryOf('ai', { version: '1.0.0', baseUrl: 'x', descriptor: { nope: 1 } })
    expect(built).toEqual({
      problem: expect.stringMatching(
        /^Remote "ai" was left out because the registered descriptor of 1\.0\.0 is not valid/,
      ) as string,
    })
  })
})

describe('createDbRegistrySource', () => {
  it('says so when no remote has a stable version yet', async () => {
    const source = createDbRegistrySource({ sql })
    expect(await source.read()).toEqual({
      remotes: [],
      diagnostics: [
        {
          remote: null,
          message: expect.stringContaining('No remote has a stable version') as string,
        },
      ],
    })
  })

  it('reads stable entries with their previous good version, and notices other processes’ changes', async () => {
    const source = createDbRegistrySource({ sql, pollMs: 10 })
    let changes = 0
    const stop = source.watch(() => (changes += 1))
    try {
      await register('1.0.0')
      await makeStable('1.0.0', 1)
      await waitFor(() => (changes > 0 ? true : undefined), { what: 'a change' })
      await register('1.1.0')
      await makeStable('1.1.0', 2)
      const content = (await source.read()) as { remotes: Record<string, unknown>[] }
      expect(content.remotes).toEqual([
        expect.objectContaining({
          name: 'ai',
          version: '1.1.0',
          previous: {
            version: '1.0.0',
            entryUrl: 'https://cdn.example.com/ai/1.0.0/assets/remoteEntry.js',
          },
        }),
      ])
      // Unchanged content is served from memory: the same object again.
      expect(await source.read()).toBe(content)
    } finally {
      stop()
    }
  })

  it('tells watchers at once when this process invalidates it', () => {
    const source = createDbRegistrySource({ sql, pollMs: 60_000 })
    let changes = 0
    const stop = source.watch(() => (changes += 1))
    source.invalidate()
    stop()
    expect(changes).toBe(1)
  })

  it('leaves out, with a diagnostic, a stable version whose descriptor no longer reads', async () => {
    await register('1.2.0', { name: 'ai', version: '1.2.0' })
    await makeStable('1.2.0', 3)
    const source = createDbRegistrySource({ sql })
    const content = (await source.read()) as { remotes: unknown[]; diagnostics: unknown[] }
    expect(content.remotes).toEqual([])
    expect(content.diagnostics).toEqual([
      {
        remote: 'ai',
        message: expect.stringContaining('descriptor of 1.2.0 is not valid') as string,
      },
    ])
  })

  it('carries a stable build’s audience for operators into its entry', async () => {
    await register('1.3.0', { ...descriptor('1.3.0'), audience: 'operators' })
    await makeStable('1.3.0', 4)
    const content = (await createDbRegistrySource({ sql }).read()) as {
      remotes: Record<string, unknown>[]
    }
    expect(content.remotes).toEqual([
      expect.objectContaining({ name: 'ai', version: '1.3.0', audience: 'operators' }),
    ])
  })
})
