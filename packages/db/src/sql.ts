/**
 * The small SQL executor every Tessera server part shares. Two implementations speak it:
 * PGlite in-process (`pglite-sql.ts`) and a PostgreSQL server through postgres.js
 * (`postgres-js-sql.ts`). Code written against it runs unchanged on both.
 */

/**
 * A parameter value. Both drivers type these the same way; send JSON as text
 * (`JSON.stringify(x)` with `$1::jsonb`) and lists as text (`string_to_array($1, ',')`). Read an
 * array column as JSON (`to_jsonb(column)`): the server's driver does not parse arrays.
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

/** One statement with its parameters. */
export interface SqlStatement {
  text: string
  params?: readonly SqlValue[]
}

export interface TransactionOptions {
  /**
   * A statement that opens the transaction, before `fn` runs (such as setting the role). Its
   * failure fails the transaction. On a server it travels with `begin` and `fn`'s first
   * statement instead of costing round trips of its own.
   */
  opening?: SqlStatement
  /**
   * The transaction only reads: it may not write (Postgres refuses), and on a server its result
   * is returned without waiting for `commit`, which has nothing left to make durable.
   */
  readOnly?: boolean
}

/** A LISTEN held open by `Sql.listen`; `close()` ends it. */
export interface SqlListener {
  close(): Promise<void>
}

export interface ListenOptions {
  /**
   * Called each time the channel is being listened to: once at first, then after every
   * reconnection. Notifications sent while the connection was down are lost, so this is where a
   * caller reads what it may have missed.
   */
  onListening?(): void
  /** The connection dropped; it is being re-established (then `onListening` again). */
  onDropped?(): void
  /** A reconnection attempt failed (it is retried with a growing delay). */
  onError?(error: unknown): void
}

export interface Sql extends SqlQueryable {
  readonly kind: 'pglite' | 'postgres'
  /**
   * LISTENs on `channel` and calls `onNotify` with each notification's payload (`pg_notify`,
   * delivered at its transaction's commit). On a server it holds a session connection of its
   * own (never a pooled one: a transaction-mode pooler would drop it), re-established when it
   * drops; on PGlite it is the one session. Resolves once the first LISTEN is in place.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    options?: ListenOptions,
  ): Promise<SqlListener>
  /**
   * Runs `fn` in a transaction: committed when it resolves, rolled back when it throws. A wrapper
   * around an executor must pass `options` on: the opening may be what confines `fn` (a role). On PGlite
   * transactions are serialised (one session); on a server they run in parallel, so take row locks.
   */
  transaction<T>(fn: (tx: SqlTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>
  /**
   * One statement in a transaction of its own (after `options.opening`, which may confine it): on
   * a server `begin`, the opening, the statement and `commit` go out together, one round trip
   * where `transaction` takes two. It is committed once it succeeded: a caller that needs to look
   * at its result before deciding uses `transaction`. A failure of the opening or the statement
   * keeps nothing, and the first failure is the one reported.
   */
  transactionOf<T = Record<string, unknown>>(
    statement: SqlStatement,
    options?: TransactionOptions,
  ): Promise<QueryResult<T>>
  close(): Promise<void>
}

/*
 * Results read the same on both drivers: timestamps come back as `Date` and json/jsonb as parsed
 * values; `int8`/`numeric` differ (number on PGlite, string on postgres.js), so cast counts with
 * `::int` in SQL.
 */
