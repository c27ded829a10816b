/**
 * The one way the BFF queries Postgres: Kysely builds and types the SQL, the shared executor
 * (`Sql` from emulators/postgres: PGlite in-process or postgres.js) runs it. Kysely never opens
 * a connection here (a compile-only dialect), so the same query runs unchanged on both, inside
 * or outside a transaction.
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely'
import type { Compilable } from 'kysely'
import type { QueryResult, SqlQueryable, SqlValue } from '@tessera/db/sql'
import type { Database } from './schema.ts'

/** Builds queries only: `execute(query, sql)` runs them. */
export const queries = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
})

/** Compiles a Kysely query and runs it on the database or on an open transaction. */
export async function execute<O>(query: Compilable<O>, on: SqlQueryable): Promise<QueryResult<O>> {
  const compiled = query.compile()
  return on.query<O>(compiled.sql, compiled.parameters as readonly SqlValue[])
}
