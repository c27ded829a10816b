import { readFileSync } from 'node:fs'
import type { Sql } from './sql.ts'

/** The bootstrap script's text (also hashed by the test template cache). */
export const bootstrapSql = readFileSync(new URL('./bootstrap.sql', import.meta.url), 'utf8')

/**
 * Creates what hosted Supabase provides before migrations: roles, `auth` & `extensions`, GoTrue's
 * tables and `auth.uid()`/`auth.role()`/`auth.jwt()`. Idempotent; one transaction.
 */
export async function bootstrapLocalSupabase(sql: Sql): Promise<void> {
  await sql.transaction((tx) => tx.exec(bootstrapSql))
}
