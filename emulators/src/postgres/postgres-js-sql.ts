import postgres from 'postgres'
import type { QueryResult, Sql, SqlQueryable, SqlValue } from './sql.ts'

export interface PostgresJsOptions {
  /** Pool size; 1 when the server is a single-session proxy such as pglite-socket. */
  max?: number
}

type Client = postgres.Sql | postgres.TransactionSql

function queryable(client: Client): SqlQueryable {
  return {
    async query<T>(text: string, params: readonly SqlValue[] = []): Promise<QueryResult<T>> {
      const rows = await client.unsafe(text, params as postgres.ParameterOrJSON<never>[])
      return { rows: rows as unknown as T[], rowCount: rows.count }
    },
    async exec(text: string) {
      // Without parameters postgres.js uses the simple protocol, which accepts several statements.
      await client.unsafe(text)
    },
  }
}

/** The executor for a PostgreSQL server (`DATABASE_URL`), through postgres.js. */
export function createPostgresJsSql(url: string, options: PostgresJsOptions = {}): Sql {
  const client = postgres(url, {
    max: options.max ?? 10,
    // "relation already exists, skipping" and friends from idempotent DDL are not news.
    onnotice: () => undefined,
    types: {
      // As on PGlite: a string sent to a json/jsonb parameter is already JSON text. postgres.js
      // would encode it again and store a JSON string instead of the object.
      json: {
        to: 114,
        from: [114, 3802],
        serialize: (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value)),
        parse: (text: string) => JSON.parse(text) as unknown,
      },
    },
  })
  const direct = queryable(client)
  return {
    kind: 'postgres',
    query: direct.query,
    exec: direct.exec,
    async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      const result = await client.begin((tx) => fn(queryable(tx)))
      return result as T
    },
    close: () => client.end({ timeout: 5 }),
  }
}
