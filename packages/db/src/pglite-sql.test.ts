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
