import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sql } from './sql.ts'
import { createTestDatabase, databaseSetupTimeout, testDatabaseKind } from './testing.ts'

// LISTEN/NOTIFY through the executor, on whichever engine this run tests (PGlite, or the
// PostgreSQL server of the test command's second pass).
let sql: Sql
beforeAll(async () => {
  sql = await createTestDatabase({ migrationsDir: false })
}, databaseSetupTimeout)
afterAll(() => sql.close())

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe(`listen (${testDatabaseKind})`, () => {
  it('hears a notification once its transaction commits, and nothing of one rolled back', async () => {
    const heard: string[] = []
    let listened = 0
    const listener = await sql.listen('test_channel', (payload) => heard.push(payload), {
      onListening: () => (listened += 1),
    })
    expect(listened).toBe(1)
    await expect(
      sql.transaction(async (tx) => {
        await tx.query(`select pg_notify('test_channel', 'rolled back')`)
        throw new Error('no')
      }),
    ).rejects.toThrow('no')
    await sql.transaction(async (tx) => {
      await tx.query(`select pg_notify('test_channel', $1)`, ['committed'])
    })
    await until(() => heard.length > 0, 'the notification')
    expect(heard).toEqual(['committed'])
    await listener.close()
    await sql.query(`select pg_notify('test_channel', 'after close')`)
    await sql.query('select 1')
    expect(heard).toEqual(['committed'])
  })

  it('lets a listener query the database while it is being notified', async () => {
    const counts: number[] = []
    const listener = await sql.listen('test_queries', () => {
      void sql.query<{ n: number }>('select 1::int as n').then(({ rows }) => {
        counts.push(rows[0]?.n ?? 0)
      })
    })
    await sql.transaction(async (tx) => {
      await tx.query(`select pg_notify('test_queries', '')`)
    })
    await until(() => counts.length > 0, 'the listener’s query')
    expect(counts).toEqual([1])
    await listener.close()
  })

  // The server pass of npm test runs it: PGlite has no backend to terminate.
  if (testDatabaseKind === 'postgres')
    it('listens again after its connection is terminated, and says so', async () => {
      const heard: string[] = []
      let listened = 0
      let dropped = 0
      const listener = await sql.listen('test_again', (payload) => heard.push(payload), {
        onListening: () => (listened += 1),
        onDropped: () => (dropped += 1),
      })
      await sql.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where application_name = 'tessera-listen' and datname = current_database()`,
      )
      await until(() => dropped === 1 && listened === 2, 'the listener to come back')
      await sql.query(`select pg_notify('test_again', 'back')`)
      await until(() => heard.length > 0, 'the notification')
      expect(heard).toEqual(['back'])
      await listener.close()
    }, 20_000)
})
