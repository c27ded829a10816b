/**
 * The small SQL executor every Tessera server part shares. Two implementations speak it:
 * PGlite in-process (`pglite-sql.ts`) and a PostgreSQL server through postgres.js
 * (`postgres-js-sql.ts`). Code written against it runs unchanged on both.
 */

/**
 * A parameter value. Both drivers type these the same way; send JSON as text
 * (`JSON.stringify(x)` with `$1::jsonb`) and lists as text (`string_to_array($1, ',')`).
 */
export type SqlValue = string | number | boolean | null | Date | Uint8Array

export interface QueryResult<T> {
  rows: T[]
  /** Rows inserted, updated, deleted or returned by the statement. */
  rowCount: number
}

/** What can run statements: the database itself, or one open transaction. */
export interface SqlQueryable {
  /** One statement with `$1`-style parameters. */
  query<T = Record<string, unknown>>(
    text: string,
    params?: readonly SqlValue[],
  ): Promise<QueryResult<T>>
  /** Several statements without parameters (a migration file, the bootstrap). */
  exec(text: string): Promise<void>
}

export type SqlTransaction = SqlQueryable

export interface Sql extends SqlQueryable {
  readonly kind: 'pglite' | 'postgres'
  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. On PGlite
   * transactions are serialised (one session); on a server they run in parallel, so take row locks.
   */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/*
 * Results read the same on both drivers: timestamps come back as `Date` and json/jsonb as parsed
 * values; `int8`/`numeric` differ (number on PGlite, string on postgres.js), so cast counts with
 * `::int` in SQL.
 */
