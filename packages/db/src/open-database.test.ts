import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDatabase, openPglite, prepareDatabase } from './open-database.ts'
import { createTestDatabase, databaseSetupTimeout } from './testing.ts'

let dir: string
let seed: Blob
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tessera-pglite-'))
  // Start the data dir from a bootstrapped dump: initdb would cost seconds.
  const template = await createTestDatabase({ migrationsDir: false, serverUrl: null })
  if (template.kind !== 'pglite') throw new Error('expected PGlite')
  seed = await (template as unknown as { pglite: PGlite }).pglite.dumpDataDir('none')
  await template.close()
}, databaseSetupTimeout)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('openDatabase', () => {
  it('keeps data in the PGlite data dir across a restart', { timeout: 60_000 }, async () => {
    const dataDir = path.join(dir, 'pglite')
    const first = await openPglite({ dataDir, seed })
    await prepareDatabase(first, { bootstrap: true, migrationsDir: false })
    await first.exec(
      `create table public.kept (note text); insert into public.kept values ('still here');`,
    )
    await first.close()
    expect((await readdir(dataDir)).length).toBeGreaterThan(0)

    const second = await openDatabase({ dataDir })
    try {
      expect(second.kind).toBe('pglite')
      await prepareDatabase(second, { bootstrap: true, migrationsDir: false })
      const { rows } = await second.query('select note from public.kept')
      expect(rows).toEqual([{ note: 'still here' }])
    } finally {
      await second.close()
    }
  })
})
