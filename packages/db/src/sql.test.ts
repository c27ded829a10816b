import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresJsSql } from './postgres-js-sql.ts'
import type { Sql } from './sql.ts'
import {
  createTestDatabase,
  databaseSetupTimeout,
  testDatabaseKind,
  testServerUrl,
} from './testing.ts'

// The executor's transaction contract, on whichever engine this run tests (PGlite, or the
// PostgreSQL server of the test command's second pass).
let sql: Sql
beforeAll(async () => {
  sql = await createTestDatabase({ migrationsDir: false })
  await sql.exec('create table notes (body text not null)')
}, databaseSetupTimeout)
afterAll(() => sql.close())

const settingOf = (tx: Pick<Sql, 'query'>) =>
  tx
    .query<{ value: string | null }>(
      `select nullif(current_setting('app.note', true), '') as value`,
    )
    .then(({ rows }) => rows[0]?.value ?? null)

const notes = async () =>
  (await sql.query<{ body: string }>('select body from notes order by body')).rows.map(
    (row) => row.body,
  )

describe(`transactions (${testDatabaseKind})`, () => {
  it('runs the opening statement before the first statement of the transaction', async () => {
    const seen = await sql.transaction((tx) => settingOf(tx), {
      opening: { text: `select set_config('app.note', $1, true)`, params: ['opened'] },
    })
    expect(seen).toBe('opened')
  })

  it('commits what the transaction wrote once it resolves', async () => {
    await sql.transaction(async (tx) => {
      await tx.query('insert into notes (body) values ($1)', ['kept'])
    })
    expect(await notes()).toContain('kept')
  })

  it('rolls back everything when the transaction throws', async () => {
    const failure = new Error('changed my mind')
    await expect(
      sql.transaction(async (tx) => {
        await tx.query('insert into notes (body) values ($1)', ['rolled back'])
        throw failure
      }),
    ).rejects.toBe(failure)
    expect(await notes()).not.toContain('rolled back')
  })

  it('fails with the opening’s own error when the opening fails, and writes nothing', async () => {
    const attempt = sql.transaction(
      async (tx) => {
        await tx.query('insert into notes (body) values ($1)', ['after a failed opening'])
      },
      { opening: { text: 'select 1 / $1::int', params: [0] } },
    )
    await expect(attempt).rejects.toThrow(/division by zero/)
    expect(await notes()).not.toContain('after a failed opening')
  })

  it('refuses a write in a read-only transaction, and keeps nothing of it', async () => {
    await expect(
      sql.transaction(
        (tx) => tx.query('insert into notes (body) values ($1)', ['written while reading']),
        { readOnly: true },
      ),
    ).rejects.toThrow(/read-only transaction/)
    expect(await notes()).not.toContain('written while reading')
  })

  it('answers read-only transactions at once, their connections fit for what comes next', async () => {
    // Many more than the server pool has connections, reads and writes interleaved, so every
    // connection is taken again right after a read handed it back before its commit was answered.
    const rounds = Array.from({ length: 40 }, async (_, round) => {
      const seen = await sql.transaction((tx) => settingOf(tx), {
        readOnly: true,
        opening: { text: `select set_config('app.note', $1, true)`, params: [`read ${round}`] },
      })
      expect(seen).toBe(`read ${round}`)
      await sql.transaction(async (tx) => {
        expect(await settingOf(tx)).toBeNull()
        await tx.query('insert into notes (body) values ($1)', [`round ${round}`])
      })
    })
    await Promise.all(rounds)
    const stored = await notes()
    for (let round = 0; round < 40; round += 1) expect(stored).toContain(`round ${round}`)
  })

  it('leaves no setting of a transaction behind for the next one', async () => {
    // More transactions than the server pool has connections, so each connection is reused.
    for (let round = 0; round < 12; round += 1) {
      await sql.transaction(async () => undefined, {
        opening: { text: `select set_config('app.note', 'left over', true)` },
      })
      expect(await sql.transaction((tx) => settingOf(tx))).toBeNull()
    }
  })
})

describe(`one-statement transactions (${testDatabaseKind})`, () => {
  it('runs the statement after the opening and commits it', async () => {
    const { rows, rowCount } = await sql.transactionOf<{ body: string }>(
      {
        text: `insert into notes (body) values (current_setting('app.note') || $1) returning body`,
        params: [' and kept'],
      },
      { opening: { text: `select set_config('app.note', $1, true)`, params: ['opened'] } },
    )
    expect(rows).toEqual([{ body: 'opened and kept' }])
    expect(rowCount).toBe(1)
    expect(await notes()).toContain('opened and kept')
    // The opening's setting ended with the transaction.
    expect(await sql.transaction((tx) => settingOf(tx))).toBeNull()
  })

  it('reports the statement’s own error and keeps nothing of it', async () => {
    await expect(
      sql.transactionOf({
        text: `insert into notes (body) select $1 union all select null`,
        params: ['half of a failed statement'],
      }),
    ).rejects.toThrow(/null value in column "body"/)
    expect(await notes()).not.toContain('half of a failed statement')
  })

  it('fails with the opening’s error when the opening fails, and writes nothing', async () => {
    await expect(
      sql.transactionOf(
        { text: 'insert into notes (body) values ($1)', params: ['after a failed opening, once'] },
        { opening: { text: 'select 1 / $1::int', params: [0] } },
      ),
    ).rejects.toThrow(/division by zero/)
    expect(await notes()).not.toContain('after a failed opening, once')
  })

  it('refuses a write when read-only', async () => {
    await expect(
      sql.transactionOf(
        { text: 'insert into notes (body) values ($1)', params: ['written in a read'] },
        { readOnly: true },
      ),
    ).rejects.toThrow(/read-only transaction/)
    expect(await notes()).not.toContain('written in a read')
  })

  it('leaves its connection fit for the next one after a failure', async () => {
    // More than the server pool has connections: every connection is reused after a failure.
    for (let round = 0; round < 12; round += 1) {
      await expect(sql.transactionOf({ text: 'select 1 / $1::int', params: [0] })).rejects.toThrow()
      const { rows } = await sql.transactionOf<{ value: number }>({
        text: 'select $1::int as value',
        params: [round],
      })
      expect(rows).toEqual([{ value: round }])
    }
  })
})

/**
 * A TCP proxy in front of the test server that resets its first connection as soon as the client
 * sends anything after the server's first ReadyForQuery: a backend lost while the connection is
 * still being set up (a restart, a failover, `pg_terminate_backend` on a new connection).
 */
async function proxyResettingTheFirstConnection(serverUrl: string) {
  const server = new URL(serverUrl)
  const readyForQuery = Buffer.from([0x5a, 0, 0, 0, 5])
  let connections = 0
  const proxy = net.createServer((client) => {
    connections += 1
    const doomed = connections === 1
    let ready = false
    const upstream = net.connect(Number(server.port || 5432), server.hostname)
    upstream.on('data', (chunk) => {
      if (chunk.includes(readyForQuery)) ready = true
      client.write(chunk)
    })
    client.on('data', (chunk) => {
      if (doomed && ready) {
        client.resetAndDestroy()
        upstream.destroy()
      } else upstream.write(chunk)
    })
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const url = new URL(serverUrl)
  url.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`
  return {
    url: url.toString(),
    connections: () => connections,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  }
}

// The server pass of npm test runs these: PGlite has no connections.
if (testDatabaseKind === 'postgres')
  describe('new connections (postgres)', () => {
    it('runs a transaction that is a new pool’s first statement', async () => {
      // postgres.js never hands over a connection reserved as it opens without fetching types
      // first; patches/postgres+3.4.9.patch mends it (decision 057).
      const fresh = createPostgresJsSql(testServerUrl ?? '', { max: 2 })
      try {
        const sums = await Promise.all(
          [1, 2].map((n) =>
            fresh.transaction(
              async (tx) => (await tx.query<{ n: number }>('select $1::int as n', [n])).rows,
            ),
          ),
        )
        expect(sums).toEqual([[{ n: 1 }], [{ n: 2 }]])
      } finally {
        await fresh.close()
      }
    }, 10_000)

    it('fails at most the statement on a connection lost as it starts, strays no rejection, reconnects', async () => {
      const stray: unknown[] = []
      const onStray = (reason: unknown) => stray.push(reason)
      process.on('unhandledRejection', onStray)
      const proxy = await proxyResettingTheFirstConnection(testServerUrl ?? '')
      const lossy = createPostgresJsSql(proxy.url, { max: 1 })
      try {
        const first = await lossy.query<{ n: number }>('select 1::int as n').then(
          ({ rows }) => rows,
          (error: unknown) => error,
        )
        if (!Array.isArray(first)) expect(String(first)).toMatch(/ECONNRESET|CONNECTION_CLOSED/)
        const { rows } = await lossy.query<{ n: number }>('select 2::int as n')
        expect(rows).toEqual([{ n: 2 }])
        expect(proxy.connections()).toBe(2)
        // Node reports unhandled rejections once a turn of the event loop ends: let this one end.
        await new Promise((resolve) => setImmediate(resolve))
        expect(stray).toEqual([])
      } finally {
        process.off('unhandledRejection', onStray)
        await lossy.close()
        await proxy.close()
      }
    })
  })
