import { createHash } from 'node:crypto'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { defaultMigrationsDir } from './paths.ts'
import type { Sql } from './sql.ts'

export interface MigrationFile {
  /** The leading digits of the file name (`20260101120000`). */
  version: string
  /** The rest of the file name without `.sql` (`create_profiles`). */
  name: string
  file: string
  text: string
  /** sha256 of the file's text, hex. */
  checksum: string
}

export interface AppliedMigration {
  version: string
  name: string
}

/** Thrown when the files and the database's record disagree; nothing is applied. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError'
}

// The Supabase CLI's pattern: `<digits>_<name>.sql`.
const fileNamePattern = /^(\d+)_(.+)\.sql$/

/** Reads `*.sql` migration files in file name order. */
export async function readMigrationFiles(
  dir: string = defaultMigrationsDir,
): Promise<MigrationFile[]> {
  let entries: string[]
  try {
    entries = await readdir(dir)
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return []
    throw error
  }
  const files: MigrationFile[] = []
  for (const file of entries.filter((entry) => entry.endsWith('.sql')).sort()) {
    const match = fileNamePattern.exec(file)
    if (match === null || match[1] === undefined || match[2] === undefined) {
      throw new MigrationError(
        `Migration file ${file} must be named <digits>_<name>.sql (e.g. 20260101120000_create_profiles.sql).`,
      )
    }
    const text = await readFile(path.join(dir, file), 'utf8')
    files.push({
      version: match[1],
      name: match[2],
      file,
      text,
      checksum: createHash('sha256').update(text).digest('hex'),
    })
  }
  const seen = new Map<string, string>()
  for (const migration of files) {
    const other = seen.get(migration.version)
    if (other !== undefined)
      throw new MigrationError(
        `Migrations ${other} and ${migration.file} share version ${migration.version}.`,
      )
    seen.set(migration.version, migration.file)
  }
  return files
}

// The Supabase CLI's history table (version, statements, name) plus what this runner checks.
// Compatible both ways: a database migrated by the CLI gains the two columns, with null checksums.
const historyDdl = `
create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (
  version text primary key,
  statements text[],
  name text
);
alter table supabase_migrations.schema_migrations
  add column if not exists applied_at timestamptz not null default now(),
  add column if not exists checksum text;
comment on table supabase_migrations.schema_migrations is 'Migrations applied from supabase/migrations, in order, with a checksum of each file.';
`

// Serialises runners started at the same time against one server database.
const lockKey = 74_615_283

interface HistoryRow {
  version: string
  name: string | null
  checksum: string | null
}

/**
 * Applies pending migrations in file name order, each in its own transaction together with its
 * history row. Refuses (before applying anything) when an applied file changed or disappeared, or
 * when a pending file sorts before the last applied one.
 */
export async function runMigrations(
  sql: Sql,
  options: { dir?: string } = {},
): Promise<AppliedMigration[]> {
  const files = await readMigrationFiles(options.dir)
  await sql.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [lockKey])
    await tx.exec(historyDdl)
  })
  const { rows: history } = await sql.query<HistoryRow>(
    'select version, name, checksum from supabase_migrations.schema_migrations order by version',
  )
  const byVersion = new Map(files.map((file) => [file.version, file]))
  for (const row of history) {
    const file = byVersion.get(row.version)
    if (file === undefined) {
      throw new MigrationError(
        `Migration ${row.version}_${row.name ?? ''}.sql was applied to this database but is missing from the migrations folder.`,
      )
    }
    if (row.checksum !== null && row.checksum !== file.checksum) {
      throw new MigrationError(
        `Migration ${file.file} was changed after it was applied. Restore it and add a new migration for the change.`,
      )
    }
  }
  const applied = new Set(history.map((row) => row.version))
  const lastApplied = history.at(-1)?.version
  const pending = files.filter((file) => !applied.has(file.version))
  const early = pending.find(
    (file) => lastApplied !== undefined && compareVersions(file.version, lastApplied) < 0,
  )
  if (early !== undefined) {
    throw new MigrationError(
      `Migration ${early.file} sorts before ${lastApplied}, which is already applied. Give it a later timestamp.`,
    )
  }

  const done: AppliedMigration[] = []
  for (const file of pending) {
    const ran = await sql.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [lockKey])
      const { rows } = await tx.query(
        'select 1 from supabase_migrations.schema_migrations where version = $1',
        [file.version],
      )
      // Another runner applied it while this one waited for the lock.
      if (rows.length > 0) return false
      try {
        await tx.exec(file.text)
      } catch (error) {
        throw new MigrationError(
          `Migration ${file.file} failed: ${error instanceof Error ? error.message : String(error)}`,
          {
            cause: error,
          },
        )
      }
      await tx.query(
        `insert into supabase_migrations.schema_migrations (version, name, statements, checksum)
         values ($1, $2, array[$3::text], $4)`,
        [file.version, file.name, file.text, file.checksum],
      )
      return true
    })
    if (ran) done.push({ version: file.version, name: file.name })
  }
  return done
}

function compareVersions(a: string, b: string): number {
  return a.length === b.length ? a.localeCompare(b) : a.length - b.length
}
