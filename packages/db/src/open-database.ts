import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto'
import { bootstrapLocalSupabase } from './bootstrap.ts'
import { runMigrations } from './migrations.ts'
import type { AppliedMigration } from './migrations.ts'
import { defaultDataDir } from './paths.ts'
import { createPgliteSql } from './pglite-sql.ts'
import type { PgliteSql } from './pglite-sql.ts'
import { createPostgresJsSql } from './postgres-js-sql.ts'
import type { Sql } from './sql.ts'

export interface OpenDatabaseOptions {
  /** A PostgreSQL server (`DATABASE_URL`); without it the database is PGlite, in-process. */
  url?: string
  /** PGlite's data directory (default `.tessera/pglite`); `memory://` keeps nothing. */
  dataDir?: string
  /** PGlite: a `dumpDataDir()` tarball to start from instead of running initdb (tests). */
  seed?: Blob
  /** postgres.js pool size. */
  maxConnections?: number
  /** Where LISTEN connects when `url` goes through a transaction-mode pooler (a session URL). */
  listenUrl?: string
}

/** Opens PGlite (its data survives a restart) or, with `url`, a pool to a server. */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Sql> {
  if (options.url !== undefined) {
    return createPostgresJsSql(options.url, {
      ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
      ...(options.listenUrl === undefined ? {} : { listenUrl: options.listenUrl }),
    })
  }
  return openPglite(options)
}

/** PGlite with the extensions the bootstrap needs (pgcrypto: GoTrue-compatible bcrypt). */
export async function openPglite(
  options: Pick<OpenDatabaseOptions, 'dataDir' | 'seed'> = {},
): Promise<PgliteSql> {
  const dataDir = options.dataDir ?? defaultDataDir
  if (!dataDir.includes('://'))
    await mkdir(path.dirname(path.resolve(dataDir)), { recursive: true })
  const pglite = await PGlite.create({
    dataDir,
    extensions: { pgcrypto },
    ...(options.seed === undefined ? {} : { loadDataDir: options.seed }),
  })
  return createPgliteSql(pglite)
}

export interface PrepareDatabaseOptions {
  /** Run the local Supabase bootstrap first (PGlite, a plain server); never on hosted Supabase. */
  bootstrap: boolean
  /** Folder of `*.sql` migrations; `false` skips them. */
  migrationsDir?: string | false
}

/** Bootstrap (when asked) then apply pending migrations; returns what was applied now. */
export async function prepareDatabase(
  sql: Sql,
  options: PrepareDatabaseOptions,
): Promise<AppliedMigration[]> {
  if (options.bootstrap) await bootstrapLocalSupabase(sql)
  if (options.migrationsDir === false) return []
  return runMigrations(
    sql,
    options.migrationsDir === undefined ? {} : { dir: options.migrationsDir },
  )
}
