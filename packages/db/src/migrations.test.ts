import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MigrationError, runMigrations } from './migrations.ts'
import type { Sql } from './sql.ts'
import { createTestDatabase, databaseSetupTimeout } from './testing.ts'

let sql: Sql
let dir: string

// One database for the file (a fresh one costs ~0.5 s); each test starts from an empty history and
// an empty `scratch` schema, where its migrations create their tables.
beforeAll(async () => {
  sql = await createTestDatabase({ migrationsDir: false })
}, databaseSetupTimeout)
afterAll(async () => {
  await sql.close()
})
beforeEach(async () => {
  await sql.exec(
    'drop schema if exists supabase_migrations cascade; drop schema if exists scratch cascade; create schema scratch;',
  )
  dir = await mkdtemp(path.join(tmpdir(), 'tessera-migrations-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const write = (file: string, text: string) => writeFile(path.join(dir, file), text)

interface HistoryRow {
  version: string
  name: string
  checksum: string
  applied_at: Date
}

const history = async () =>
  (
    await sql.query<HistoryRow>(
      'select version, name, checksum, applied_at from supabase_migrations.schema_migrations order by version',
    )
  ).rows

describe('migration runner', () => {
  it('applies files in file name order and records version, name, checksum and time', async () => {
    // The second file depends on the first: applying out of order would fail.
    await write('20260102000000_add_body.sql', 'alter table scratch.notes add column body text;')
    await write(
      '20260101000000_create_notes.sql',
      'create table scratch.notes (id serial primary key);',
    )
    await write('README.md', 'not a migration')

    const applied = await runMigrations(sql, { dir })

    expect(applied).toEqual([
      { version: '20260101000000', name: 'create_notes' },
      { version: '20260102000000', name: 'add_body' },
    ])
    const rows = await history()
    expect(rows.map((row) => [row.version, row.name])).toEqual([
      ['20260101000000', 'create_notes'],
      ['20260102000000', 'add_body'],
    ])
    expect(rows[0]?.checksum).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0]?.applied_at).toBeInstanceOf(Date)
    await sql.query(`insert into scratch.notes (body) values ('ok')`)
  })

  it('applies nothing the second time and only the new file after one is added', async () => {
    await write(
      '20260101000000_create_notes.sql',
      'create table scratch.notes (id serial primary key);',
    )
    await runMigrations(sql, { dir })
    expect(await runMigrations(sql, { dir })).toEqual([])

    await write('20260103000000_add_title.sql', 'alter table scratch.notes add column title text;')
    expect(await runMigrations(sql, { dir })).toEqual([
      { version: '20260103000000', name: 'add_title' },
    ])
  })

  it('refuses to run when an applied migration file was changed', async () => {
    await write(
      '20260101000000_create_notes.sql',
      'create table scratch.notes (id serial primary key);',
    )
    await runMigrations(sql, { dir })
    await write(
      '20260101000000_create_notes.sql',
      'create table scratch.notes (id bigserial primary key);',
    )
    await write('20260102000000_more.sql', 'create table scratch.more (id int);')

    await expect(runMigrations(sql, { dir })).rejects.toThrow(
      new MigrationError(
        'Migration 20260101000000_create_notes.sql was changed after it was applied. Restore it and add a new migration for the change.',
      ),
    )
    // Nothing after the refusal ran.
    expect((await history()).map((row) => row.version)).toEqual(['20260101000000'])
  })

  it('refuses when an applied migration file disappeared or a new one sorts before the last applied', async () => {
    await write(
      '20260102000000_create_notes.sql',
      'create table scratch.notes (id serial primary key);',
    )
    await runMigrations(sql, { dir })

    await write('20260101000000_late.sql', 'create table scratch.late (id int);')
    await expect(runMigrations(sql, { dir })).rejects.toThrow(/sorts before 20260102000000/)

    await unlink(path.join(dir, '20260101000000_late.sql'))
    await unlink(path.join(dir, '20260102000000_create_notes.sql'))
    await expect(runMigrations(sql, { dir })).rejects.toThrow(/missing from the migrations folder/)
  })

  it('rolls back a failing migration completely and does not record it', async () => {
    await write(
      '20260101000000_half_broken.sql',
      'create table scratch.half (id int);\ninsert into scratch.no_such_table values (1);',
    )
    await expect(runMigrations(sql, { dir })).rejects.toThrow(
      /20260101000000_half_broken.sql failed: .*no_such_table/,
    )
    expect(await history()).toEqual([])
    const { rows } = await sql.query(`select to_regclass('scratch.half') as half`)
    expect(rows).toEqual([{ half: null }])
  })

  it('refuses a file whose name does not start with a version', async () => {
    await write('create_notes.sql', 'select 1;')
    await expect(runMigrations(sql, { dir })).rejects.toThrow(/must be named <digits>_<name>.sql/)
  })
})
