import { AsyncResource } from 'node:async_hooks'
import type { PGlite, Results } from '@electric-sql/pglite'
import { Mutex } from './mutex.ts'
import { PgliteStatements } from './pglite-statements.ts'
import type { MutexOptions } from './mutex.ts'
import type { QueryResult, Sql, SqlQueryable, SqlValue } from './sql.ts'

/** The PGlite executor; exposes the instance and its lock for the Kysely driver and tests. */
export interface PgliteSql extends Sql {
  readonly kind: 'pglite'
  readonly pglite: PGlite
  /** Held by every statement, transaction and connection lease. */
  readonly mutex: Mutex
}

function toResult<T>(result: Results<T>): QueryResult<T> {
  return {
    rows: result.rows,
    rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
  }
}

/**
 * Statements on PGlite's one session: those with parameters through the prepared statements,
 * the others (set-up, DDL, a few fixed statements) through PGlite's own calls.
 */
function queryable(
  pglite: PGlite,
  statements: PgliteStatements,
  inTransaction: boolean,
): SqlQueryable {
  return {
    query: <T>(text: string, params: readonly SqlValue[] = []) =>
      statements.one(async () =>
        params.length > 0
          ? statements.run<T>(text, params, inTransaction)
          : toResult(await pglite.query<T>(text)),
      ),
    exec: (text: string) =>
      statements.one(async () => {
        await pglite.exec(text)
      }),
  }
}

/**
 * Wraps one PGlite instance. PGlite is a single Postgres session: a statement sent while another
 * caller's transaction is open would run inside that transaction. So every statement and every
 * transaction takes one FIFO lock; callers never interleave. With `detectNestedUse` (tests), a
 * transaction that calls the database instead of its handle throws instead of deadlocking.
 */
export function createPgliteSql(pglite: PGlite, options: MutexOptions = {}): PgliteSql {
  const mutex = new Mutex(options)
  const statements = new PgliteStatements(pglite)
  const direct = queryable(pglite, statements, false)
  const inTransaction = queryable(pglite, statements, true)
  const sql: PgliteSql = {
    kind: 'pglite',
    pglite,
    mutex,
    query: (text, params) => mutex.run(() => direct.query(text, params)),
    exec: (text) => mutex.run(() => direct.exec(text)),
    transaction: (fn, options = {}) =>
      mutex.run(async () => {
        // The session's own transaction block (not PGlite's wrapper, whose handle would plan
        // every statement again): begin, then the opening, then `fn` on the prepared statements.
        await inTransaction.exec(
          options.readOnly === true ? 'begin; set transaction read only' : 'begin',
        )
        try {
          if (options.opening !== undefined)
            await inTransaction.query(options.opening.text, options.opening.params)
          const result = await fn(inTransaction)
          await inTransaction.exec('commit')
          return result
        } catch (error) {
          // After a failed commit Postgres has rolled back already; this only ends the block.
          if (pglite.isInTransaction()) await inTransaction.exec('rollback')
          throw error
        }
      }),
    // One session, no round trips to save: the same as a transaction that runs the statement.
    transactionOf: (statement, options) =>
      sql.transaction((tx) => tx.query(statement.text, statement.params), options),
    async listen(channel, onNotify, listenOptions = {}) {
      // LISTEN is a statement like any other: it must not land inside another caller's transaction.
      // PGlite calls back in the middle of the statement that committed the NOTIFY, inside its
      // caller's hold of the lock: bound to this call's context instead, a listener that queries
      // waits for the lock like anyone else rather than looking like nested use.
      const deliver = AsyncResource.bind((payload: string) => onNotify(payload))
      const unlisten = await mutex.run(() => pglite.listen(channel, deliver))
      // One in-process session: it never drops, so there is never a gap to read.
      listenOptions.onListening?.()
      let closed = false
      return {
        close: async () => {
          if (closed || pglite.closed) return
          closed = true
          await mutex.run(() => unlisten())
        },
      }
    },
    close: () =>
      mutex.run(async () => {
        if (!pglite.closed) await pglite.close()
      }),
  }
  return sql
}
