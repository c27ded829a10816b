import postgres from 'postgres'
import type {
  ListenOptions,
  QueryResult,
  Sql,
  SqlListener,
  SqlQueryable,
  SqlStatement,
  SqlValue,
  TransactionOptions,
} from './sql.ts'

export interface PostgresJsOptions {
  /** Pool size; 1 when the server is a single-session proxy such as pglite-socket. */
  max?: number
  /**
   * Where `listen` connects: a session connection (the server itself, or a pooler in session
   * mode). Needed when `url` goes through a transaction-mode pooler, where LISTEN is lost.
   */
  listenUrl?: string
}

/** The delay before the n-th attempt to re-establish a dropped LISTEN (ms). */
const relistenDelayMs = (attempt: number): number => Math.min(100 * 2 ** attempt, 5000)

const quoteIdentifier = (name: string): string => `"${name.replaceAll('"', '""')}"`

type Client = postgres.Sql | postgres.TransactionSql

/**
 * One statement. With parameters it is a named prepared statement, kept per connection: unprepared,
 * postgres.js asks the server for the parameters' types first, a round trip of its own on every
 * query, and sends nothing after it until the answer. `?prepare=false` in the URL turns this off,
 * for a pooler in transaction mode (PgBouncer, Supabase's port 6543).
 */
function statement(client: Client, text: string, params: readonly SqlValue[] = []) {
  return client.unsafe(text, params as postgres.ParameterOrJSON<never>[], {
    prepare: params.length > 0,
  })
}

function queryable(client: Client): SqlQueryable {
  return {
    async query<T>(text: string, params: readonly SqlValue[] = []): Promise<QueryResult<T>> {
      const rows = await statement(client, text, params)
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
    // postgres.js would ask every new connection for the server's array types first, and drops
    // that query's promise: a connection lost during it is an unhandled rejection, which ends the
    // process (porsager/postgres#1192). Arrays travel as text literals in and as JSON out
    // (`to_jsonb(column)`), so nothing needs those types (decision 057).
    fetch_types: false,
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
  const listeners = new Set<SqlListener>()

  /**
   * A connection of its own per listener, re-established with a growing delay whenever it drops
   * (postgres.js's own `listen` gives up after one failed attempt), so a restarted server or a
   * terminated backend only ever costs a gap the caller reads after `onListening`.
   */
  async function listen(
    channel: string,
    onNotify: (payload: string) => void,
    listenOptions: ListenOptions = {},
  ): Promise<SqlListener> {
    let closed = false
    let attempt = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    // `onnotify` is the option postgres.js's own `listen` is built on; its types leave it out.
    const connectionOptions: postgres.Options<Record<string, never>> & {
      onnotify: (name: string, payload: string) => void
    } = {
      max: 1,
      // 0: never closed for being idle, never recycled for its age (a LISTEN waits all day).
      idle_timeout: 0,
      max_lifetime: 0,
      fetch_types: false,
      onnotice: () => undefined,
      connection: { application_name: 'tessera-listen' },
      onnotify: (name: string, payload: string) => {
        if (name === channel) onNotify(payload)
      },
      // The connection dropped (the server restarted, the backend was terminated): LISTEN again.
      onclose: () => {
        if (closed) return
        listenOptions.onDropped?.()
        schedule()
      },
    }
    const connection = postgres(options.listenUrl ?? url, connectionOptions)
    const listenNow = async (): Promise<void> => {
      await connection.unsafe(`listen ${quoteIdentifier(channel)}`)
      attempt = 0
      listenOptions.onListening?.()
    }
    const schedule = (): void => {
      if (closed || timer !== undefined) return
      timer = setTimeout(() => {
        timer = undefined
        if (closed) return
        listenNow().catch((error: unknown) => {
          attempt += 1
          listenOptions.onError?.(error)
          schedule()
        })
      }, relistenDelayMs(attempt))
    }
    try {
      await listenNow()
    } catch (error) {
      closed = true
      await connection.end({ timeout: 0 })
      throw error
    }
    const listener: SqlListener = {
      async close() {
        if (closed) return
        closed = true
        clearTimeout(timer)
        listeners.delete(listener)
        await connection.end({ timeout: 0 })
      },
    }
    listeners.add(listener)
    return listener
  }

  return {
    kind: 'postgres',
    query: direct.query,
    exec: direct.exec,
    listen,
    async transaction<T>(
      fn: (tx: SqlQueryable) => Promise<T>,
      options: TransactionOptions = {},
    ): Promise<T> {
      // On a connection of its own, `begin` and the opening statement are sent without waiting
      // for their answers: they go out with `fn`'s first statement (postgres.js pipelines a
      // connection's queries), so a short transaction costs two round trips (its statements, then
      // `commit`) where `sql.begin` would take four. Postgres runs them in order, and a failed
      // one aborts the transaction, so nothing of `fn` runs outside it or without its opening.
      const connection = await client.reserve()
      let result: T
      try {
        const opening = [connection.unsafe(options.readOnly === true ? 'begin read only' : 'begin')]
        if (options.opening !== undefined) {
          opening.push(statement(connection, options.opening.text, options.opening.params))
        }
        // Sends them now, in order; their failures are reported below.
        for (const statement of opening) statement.catch(() => undefined)
        const openingFailure = async (): Promise<unknown> => {
          for (const outcome of await Promise.allSettled(opening))
            if (outcome.status === 'rejected') return outcome.reason
          return undefined
        }
        try {
          result = await fn(queryable(connection))
          const failed = await openingFailure()
          if (failed !== undefined) throw failed
        } catch (error) {
          // A connection that broke has no transaction left to end: the first failure is the news.
          await connection.unsafe('rollback').catch(() => undefined)
          // A statement after a failed opening fails only as "transaction aborted": report why.
          throw (await openingFailure()) ?? error
        }
      } catch (error) {
        connection.release()
        throw error
      }
      // The connection goes back to the pool once `commit` is answered (postgres.js sends a
      // query a tick after it is made: released sooner, the commit could be lost behind the
      // next user's statements). A read has nothing to make durable, so its result is final
      // already and is returned at once.
      const committing = connection.unsafe('commit').finally(() => connection.release())
      if (options.readOnly === true) committing.catch(() => undefined)
      else await committing
      return result
    },
    async transactionOf<T>(
      text: SqlStatement,
      options: TransactionOptions = {},
    ): Promise<QueryResult<T>> {
      const connection = await client.reserve()
      try {
        // All four are sent now, in order (postgres.js pipelines a connection's queries). A failure
        // aborts the transaction, and `commit` then ends it as a rollback (Postgres answers
        // ROLLBACK, not an error), so nothing after a failure is kept.
        const sent = [connection.unsafe(options.readOnly === true ? 'begin read only' : 'begin')]
        if (options.opening !== undefined)
          sent.push(statement(connection, options.opening.text, options.opening.params))
        const index = sent.push(statement(connection, text.text, text.params)) - 1
        sent.push(connection.unsafe('commit'))
        const outcomes = await Promise.allSettled(sent)
        for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason
        const rows = (outcomes[index] as PromiseFulfilledResult<postgres.RowList<T[]>>).value
        return { rows: rows as unknown as T[], rowCount: rows.count }
      } finally {
        connection.release()
      }
    },
    async close() {
      await Promise.all([...listeners].map((listener) => listener.close()))
      await client.end({ timeout: 5 })
    },
  }
}
