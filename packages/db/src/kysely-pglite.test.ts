import { Kysely, sql as rawSql } from 'kysely'
import type { Generated } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgliteDialect } from './kysely-pglite.ts'
import type { PgliteSql } from './pglite-sql.ts'
import { createTestDatabase, databaseSetupTimeout } from './testing.ts'

interface Database {
  notes: { id: Generated<number>; owner: string; body: string }
}

let sql: PgliteSql
let db: Kysely<Database>
beforeAll(async () => {
  const opened = await createTestDatabase({ migrationsDir: false, serverUrl: null })
  if (opened.kind !== 'pglite') throw new Error('expected PGlite')
  sql = opened as PgliteSql
  await sql.exec(
    'create table public.notes (id serial primary key, owner text not null, body text not null)',
  )
  db = new Kysely<Database>({ dialect: new PgliteDialect(sql) })
}, databaseSetupTimeout)
afterAll(async () => {
  await db.destroy()
  await sql.close()
})

describe('Kysely on PGlite', () => {
  it('runs typed queries and reports affected rows', async () => {
    const inserted = await db
      .insertInto('notes')
      .values({ owner: 'ada', body: 'hello' })
      .returning('id')
      .executeTakeFirstOrThrow()
    expect(inserted.id).toEqual(expect.any(Number))
    const updated = await db
      .updateTable('notes')
      .set({ body: 'hi' })
      .where('owner', '=', 'ada')
      .executeTakeFirst()
    expect(updated.numUpdatedRows).toBe(1n)
    expect(await db.selectFrom('notes').select(['owner', 'body']).execute()).toEqual([
      { owner: 'ada', body: 'hi' },
    ])
  })

  it('commits and rolls back transactions, savepoints included', async () => {
    await db.deleteFrom('notes').execute()
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('notes').values({ owner: 'x', body: 'lost' }).execute()
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    const trx = await db.startTransaction().execute()
    await trx.insertInto('notes').values({ owner: 'y', body: 'kept' }).execute()
    const inner = await trx.savepoint('inner').execute()
    await inner.insertInto('notes').values({ owner: 'z', body: 'undone' }).execute()
    const outer = await inner.rollbackToSavepoint('inner').execute()
    await outer.commit().execute()
    expect(await db.selectFrom('notes').select('body').execute()).toEqual([{ body: 'kept' }])
  })

  it('shares the executor lock: a Kysely transaction and an executor transaction never interleave', async () => {
    await db.deleteFrom('notes').execute()
    let releaseKysely!: () => void
    const kyselyMayFinish = new Promise<void>((resolve) => {
      releaseKysely = resolve
    })
    let kyselyStarted!: () => void
    const started = new Promise<void>((resolve) => {
      kyselyStarted = resolve
    })
    const kysely = db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ owner: 'k', body: 'k1' }).execute()
      kyselyStarted()
      await kyselyMayFinish
      await rawSql`insert into notes (owner, body) values ('k', 'k2')`.execute(trx)
    })
    await started
    const executor = sql.transaction(async (tx) => {
      await tx.query(`insert into public.notes (owner, body) values ('e', 'e1')`)
    })
    releaseKysely()
    await Promise.all([kysely, executor])
    const rows = await db.selectFrom('notes').select('body').orderBy('id').execute()
    expect(rows.map((row) => row.body)).toEqual(['k1', 'k2', 'e1'])
  })
})
