// Node-only: the database as the BFF and its commands open it.
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import type { AppliedMigration } from '@tessera/db/migrations'
import type { Sql } from '@tessera/db/sql'
import type { Env } from './env.ts'

/** Bootstraps (locally) and migrates the database as the env says; the migrations it applied. */
export function prepareBffDatabase(sql: Sql, env: Env): Promise<AppliedMigration[]> {
  return prepareDatabase(sql, {
    bootstrap: env.DATABASE_BOOTSTRAP,
    ...(env.DATABASE_MIGRATE ? {} : { migrationsDir: false }),
  })
}

/**
 * The BFF's database: the PostgreSQL server at DATABASE_URL, or PGlite at PGLITE_DATA_DIR (one
 * process at a time), prepared by `prepareBffDatabase`; closed again if that fails.
 */
export async function openBffDatabase(
  env: Env,
): Promise<{ sql: Sql; applied: AppliedMigration[] }> {
  const sql = await openDatabase(
    env.DATABASE_URL === undefined
      ? { dataDir: env.PGLITE_DATA_DIR }
      : {
          url: env.DATABASE_URL,
          ...(env.DATABASE_LISTEN_URL === undefined ? {} : { listenUrl: env.DATABASE_LISTEN_URL }),
        },
  )
  try {
    return { sql, applied: await prepareBffDatabase(sql, env) }
  } catch (error) {
    await sql.close()
    throw error
  }
}
