import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPgliteSql } from './pglite-sql.ts'
import type { PgliteSql } from './pglite-sql.ts'
import { createTestDatabase, databaseSetupTimeout } from './testing.ts'

let sql: PgliteSql
beforeAll(async () => {
  // This file is about the PGlite executor, whatever the suite's database.
  const db = await createTestDatabase({ migrationsDir: false, serverUrl: null })
  if (db.kind !== 'pglite') throw new Error('expected PGlite')
  sql = db as PgliteSql
  await sql.exec('create table public.journal (seq serial primary key, entry text not null)')
}, databaseSetupTimeout)
afterAll(async () => {
  await sql.close()
})
beforeEach(async () => {
  await sql.exec('truncate public.journal restart identity')
})

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

const journal = async () =>
  (await sql.query<{ entry: string }>('select entry from public.journal order by seq')).rows.map(
    (row) => row.entry,
  )

describe('PGlite executor', () => {
  it('keeps two concurrent transactions from interleaving', async () => {
    const firstStarted = deferred()
    const letFirstFinish = deferred()
    const first = sql.transaction(async (tx) => {
      await tx.query(`insert into public.journal (entry) values ('first: begin')`)
      firstStarted.resolve()
      await letFirstFinish.promise
      await tx.query(`insert into public.journal (entry) values ('first: end')`)
    })
    await firstStarted.promise
    const second = sql.transaction(async (tx) => {
      await tx.query(`insert into public.journal (entry) values ('second: begin')`)
      await tx.query(`insert into public.journal (entry) values ('second: end')`)
    })
    // The second transaction is queued behind the first, which is still open.
    const outside = sql.query(`insert into public.journal (entry) values ('outside')`)
    letFirstFinish.resolve()
    await Promise.all([first, second, outside])

    expect(await journal()).toEqual([
      'first: begin',
      'first: end',
      'second: begin',
      'second: end',
      'outside',
    ])
  })

  it('rolls back a failed transaction without touching the one queued after it', async () => {
    const failing = sql.transaction(async (tx) => {
      await tx.query(`insert into public.journal (entry) values ('rolled back')`)
      throw new Error('boom')
    })
    const next = sql.transaction(async (tx) => {
      await tx.query(`insert into public.journal (entry) values ('kept')`)
    })
    await expect(failing).rejects.toThrow('boom')
    await next
    expect(await journal()).toEqual(['kept'])
  })

  it('does not let a statement sent outside a transaction see its uncommitted rows', async () => {
    const inserted = deferred()
    const letCommit = deferred()
    const tx = sql.transaction(async (t) => {
      await t.query(`insert into public.journal (entry) values ('pending')`)
      inserted.resolve()
      await letCommit.promise
      throw new Error('abandon')
    })
    await inserted.promise
    const seen = sql.query<{ n: number }>('select count(*)::int as n from public.journal')
    letCommit.resolve()
    await expect(tx).rejects.toThrow('abandon')
    expect((await seen).rows[0]?.n).toBe(0)
  })

  it('throws instead of deadlocking when a transaction calls the database rather than its handle', async () => {
    await expect(sql.transaction(() => sql.query('select 1'))).rejects.toThrow(
      /use the transaction handle/,
    )
    // The lock was released: the database still answers.
    expect((await sql.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }])
  })

  it('detects nested use only where asked (the test databases), not by default', () => {
    expect(sql.mutex.detectsNestedUse).toBe(true)
    // A second executor over the same instance, only to read its option; it runs no statement.
    expect(createPgliteSql(sql.pglite).mutex.detectsNestedUse).toBe(false)
  })

  it('reports affected rows and returns timestamps as dates and jsonb as values', async () => {
    const inserted = await sql.query(`insert into public.journal (entry) values ('a'), ('b')`)
    expect(inserted.rowCount).toBe(2)
    const { rows } = await sql.query<{ at: Date; doc: unknown }>(
      `select $1::timestamptz as at, $2::jsonb as doc`,
      [new Date('2026-01-02T03:04:05.000Z'), JSON.stringify({ a: [1, 2] })],
    )
    expect(rows).toEqual([{ at: new Date('2026-01-02T03:04:05.000Z'), doc: { a: [1, 2] } }])
  })
})

describe('PGlite prepared statements', () => {
  it('gives each of several statements sent at once in a transaction its own result', async () => {
    await sql.query(`insert into public.journal (entry) values ($1), ($2), ($3)`, ['a', 'b', 'c'])
    const [count, first, missing, inserted] = await sql.transaction((tx) =>
      Promise.all([
        tx.query<{ n: number }>(
          'select count(*)::int as n from public.journal where seq > $1',
          [0],
        ),
        tx.query<{ entry: string }>('select entry from public.journal where seq = $1', [1]),
        tx.query('select entry from public.journal where entry = $1', ['none']),
        tx.query(`insert into public.journal (entry) values ($1) returning seq`, ['d']),
      ]),
    )
    expect(count.rows).toEqual([{ n: 3 }])
    expect(first.rows).toEqual([{ entry: 'a' }])
    expect(missing.rows).toEqual([])
    expect(inserted.rows).toEqual([{ seq: 4 }])
    expect(inserted.rowCount).toBe(1)
  })

  it('answers the same statement again with new values, and keeps Postgres errors as they are', async () => {
    const insert = `insert into public.journal (seq, entry) values ($1, $2)`
    await sql.query(insert, [10, 'ten'])
    await sql.query(insert, [11, 'eleven'])
    await expect(sql.query(insert, [10, 'again'])).rejects.toMatchObject({
      code: '23505',
      constraint: 'journal_pkey',
    })
    // The failed statement left nothing half done: the next one runs.
    await sql.query(insert, [12, 'twelve'])
    expect(await journal()).toEqual(['ten', 'eleven', 'twelve'])
  })

  it('parses a statement again when the table it reads changed shape', async () => {
    await sql.exec('create table public.shapes (id int primary key, name text)')
    try {
      await sql.query('insert into public.shapes values ($1, $2)', [1, 'square'])
      const read = 'select * from public.shapes where id = $1'
      expect((await sql.query(read, [1])).rows).toEqual([{ id: 1, name: 'square' }])
      await sql.exec('alter table public.shapes add column sides int not null default 4')
      expect((await sql.query(read, [1])).rows).toEqual([{ id: 1, name: 'square', sides: 4 }])
    } finally {
      await sql.exec('drop table public.shapes')
    }
  })

  it('keeps the texts used last prepared and closes the others', async () => {
    const { PgliteStatements } = await import('./pglite-statements.ts')
    const statements = new PgliteStatements(sql.pglite, 2)
    const run = (text: string, value: number) =>
      sql.mutex.run(() => statements.one(() => statements.run(text, [value], false)))
    const texts = [1, 2, 3].map((n) => `select $1::int + ${n} as sum`)
    for (const [index, text] of texts.entries()) await run(text, index)
    expect(statements.size).toBe(2)
    const prepared = async () =>
      (
        await sql.query<{ n: number }>(
          `select count(*)::int as n from pg_prepared_statements where name like 'tessera_%' and statement like $1`,
          ['select $1::int + %'],
        )
      ).rows[0]?.n
    expect(await prepared()).toBe(2)
    // The one closed is prepared again when it is used again.
    expect((await run(texts[0]!, 5)).rows).toEqual([{ sum: 6 }])
    expect(statements.size).toBe(2)
  })
})
