import { parse, protocol } from '@electric-sql/pglite'
import type { PGlite, Results } from '@electric-sql/pglite'
import type { QueryResult, SqlValue } from './sql.ts'

type BackendMessage = Parameters<typeof parse.parseResults>[0][number]

/** A statement parsed once and kept by name in PGlite's one session. */
interface Prepared {
  name: string
  /** The parameters' types, as the server inferred them (what PGlite's serializers go by). */
  parameterTypes: number[]
  /** Its columns (null when it returns none): Execute does not send them again. */
  columns: BackendMessage | null
}

const { serialize } = protocol

/** Keeps the names of two executors over one session (tests make such pairs) apart. */
let executors = 0

/**
 * A statement that names a prepared plan the server can no longer use as it is (a table it reads
 * changed shape): forgotten, so the next run parses it again.
 */
const isStale = (error: unknown): boolean =>
  (error as { routine?: unknown }).routine === 'RevalidateCachedQuery'

/**
 * Statements with parameters as named prepared statements of PGlite's session, as postgres.js
 * keeps them on a server connection (decision 037): parsed and described once per text, then one
 * Bind/Execute/Sync per run. PGlite's own `query` parses, describes and plans the text again on
 * every call, in five calls into the database. Kept for the `limit` texts used last; the others
 * are closed.
 */
export class PgliteStatements {
  readonly #pglite: PGlite
  readonly #limit: number
  /** By text, the one used last at the end. */
  readonly #byText = new Map<string, Prepared>()
  readonly #prefix: string
  #named = 0
  /** The statement running now: PGlite's protocol calls must not overlap (see `one`). */
  #tail: Promise<unknown> = Promise.resolve()

  constructor(pglite: PGlite, limit = 500) {
    this.#pglite = pglite
    this.#limit = limit
    executors += 1
    this.#prefix = `tessera_${executors}_`
  }

  /** How many statements are kept prepared. */
  get size(): number {
    return this.#byText.size
  }

  /**
   * Runs `work` once the statements before it have finished. A transaction's handle may be given
   * several statements at once (`Promise.all`); PGlite answers one protocol call at a time, and
   * one that starts while another awaits its answer takes that answer.
   */
  one<T>(work: () => Promise<T>): Promise<T> {
    const running = this.#tail.then(work, work)
    this.#tail = running.catch(() => undefined)
    return running
  }

  /** Runs `text` with `params`, inside `one`; the caller holds the session. */
  async run<T>(
    text: string,
    params: readonly SqlValue[],
    inTransaction: boolean,
  ): Promise<QueryResult<T>> {
    try {
      return await this.#execute<T>(text, params, inTransaction)
    } catch (error) {
      if (!isStale(error)) throw error
      await this.#forget(text).catch(() => undefined)
      // Outside a transaction nothing was done: parsed again against the table as it is now. In
      // one, the error has ended the transaction, which its caller retries or reports.
      if (inTransaction) throw error
      return this.#execute<T>(text, params, inTransaction)
    }
  }

  async #execute<T>(
    text: string,
    params: readonly SqlValue[],
    inTransaction: boolean,
  ): Promise<QueryResult<T>> {
    const prepared = this.#byText.get(text) ?? (await this.#prepare(text))
    this.#byText.delete(text)
    this.#byText.set(text, prepared)
    const { serializers } = this.#pglite
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null
      const serializer = serializers[prepared.parameterTypes[index] ?? 0]
      return serializer === undefined ? String(value) : (serializer(value) as string)
    })
    let messages: BackendMessage[]
    try {
      ;({ messages } = await this.#pglite.execProtocol(
        Buffer.concat([
          serialize.bind({ statement: prepared.name, values }),
          serialize.execute({}),
          serialize.sync(),
        ]),
        { syncToFs: !inTransaction },
      ))
    } catch (error) {
      throw Object.assign(error as object, { query: text })
    }
    const described = prepared.columns === null ? messages : [prepared.columns, ...messages]
    const [result] = parse.parseResults(described, this.#pglite.parsers) as [Results<T>]
    return {
      rows: result.rows,
      rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
    }
  }

  async #prepare(text: string): Promise<Prepared> {
    if (this.#byText.size >= this.#limit) {
      const [oldest] = this.#byText.keys()
      if (oldest !== undefined) await this.#forget(oldest)
    }
    this.#named += 1
    const name = `${this.#prefix}${this.#named}`
    let messages: BackendMessage[]
    try {
      ;({ messages } = await this.#pglite.execProtocol(
        Buffer.concat([
          serialize.parse({ name, text }),
          serialize.describe({ type: 'S', name }),
          serialize.sync(),
        ]),
        { syncToFs: false },
      ))
    } catch (error) {
      throw Object.assign(error as object, { query: text })
    }
    const parameters = messages.find((message) => message.name === 'parameterDescription') as
      { dataTypeIDs: number[] } | undefined
    return {
      name,
      parameterTypes: parameters?.dataTypeIDs ?? [],
      columns: messages.find((message) => message.name === 'rowDescription') ?? null,
    }
  }

  async #forget(text: string): Promise<void> {
    const prepared = this.#byText.get(text)
    if (prepared === undefined) return
    this.#byText.delete(text)
    await this.#pglite.execProtocol(
      Buffer.concat([serialize.close({ type: 'S', name: prepared.name }), serialize.sync()]),
      { syncToFs: false },
    )
  }
}
