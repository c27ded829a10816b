/**
 * A Kysely dialect over the shared PGlite executor. PGlite is one session, so a Kysely connection
 * is a lease on the executor's lock: while Kysely holds it (one statement, or a whole transaction)
 * the auth stand-in and every other caller wait, and nobody's statements land in someone else's
 * transaction. On a server, use Kysely's own Postgres dialect (or kysely-postgres-js) instead.
 *
 * Inside a Kysely transaction, use the transaction object only: calling the executor (or another
 * Kysely query outside the transaction) from there waits for the lease held by that transaction.
 */
import { CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely'
import type {
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely'
import type { PGlite } from '@electric-sql/pglite'
import type { PgliteSql } from './pglite-sql.ts'

class PgliteConnection implements DatabaseConnection {
  constructor(
    private readonly pglite: PGlite,
    readonly release: () => void,
  ) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters])
    const command = result.command?.toUpperCase()
    const changes =
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
    return {
      rows: result.rows,
      ...(changes ? { numAffectedRows: BigInt(result.rowCount ?? result.affectedRows ?? 0) } : {}),
    }
  }

  // eslint-disable-next-line require-yield -- the interface asks for an iterator; PGlite has no cursors here
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error(
      'Streaming queries are not supported on PGlite; page with limit/offset instead.',
    )
  }
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`

class PgliteDriver implements Driver {
  constructor(private readonly sql: PgliteSql) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.sql.mutex.acquire()
    return new PgliteConnection(this.sql.pglite, release)
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    let statement = 'begin'
    if (settings.isolationLevel !== undefined || settings.accessMode !== undefined) {
      statement = 'start transaction'
      if (settings.isolationLevel !== undefined)
        statement += ` isolation level ${settings.isolationLevel}`
      if (settings.accessMode !== undefined) statement += ` ${settings.accessMode}`
    }
    await connection.executeQuery(CompiledQuery.raw(statement))
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'))
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteIdentifier(name)}`))
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(
      CompiledQuery.raw(`rollback to savepoint ${quoteIdentifier(name)}`),
    )
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${quoteIdentifier(name)}`))
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof PgliteConnection) connection.release()
  }

  // The PGlite instance belongs to whoever opened it (it is shared); Kysely does not close it.
  async destroy(): Promise<void> {}
}

/** `new Kysely<DB>({ dialect: new PgliteDialect(sql) })` over the process's PGlite executor. */
export class PgliteDialect implements Dialect {
  constructor(private readonly sql: PgliteSql) {}

  createAdapter(): DialectAdapter {
    return new PostgresAdapter()
  }

  createDriver(): Driver {
    return new PgliteDriver(this.sql)
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new PostgresIntrospector(db)
  }

  createQueryCompiler(): QueryCompiler {
    return new PostgresQueryCompiler()
  }
}
