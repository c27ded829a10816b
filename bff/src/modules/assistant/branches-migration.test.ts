// The branches migration (decision 031) on a database that already has conversations: each one
// becomes a single path, shown whole, in the order its messages were stored.
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { runMigrations } from '@tessera/db/migrations'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAssistantStore } from './store.ts'

const migrations = new URL('../../../../supabase/migrations/', import.meta.url).pathname
const BRANCHES = '20261126143000_assistant_message_branches.sql'

let sql: Sql
let dir: string

beforeAll(async () => {
  // Every migration before this one: the schema as it was when conversations had no branches.
  dir = await mkdtemp(path.join(tmpdir(), 'tessera-branches-'))
  for (const file of await readdir(migrations))
    if (file.endsWith('.sql') && file < BRANCHES)
      await cp(path.join(migrations, file), path.join(dir, file))
  sql = await createTestDatabase({ migrationsDir: dir })
}, databaseSetupTimeout)
afterAll(async () => {
  await sql?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('the branches migration', () => {
  it('makes every existing conversation one path, listed and sent to the model as before', async () => {
    const user = crypto.randomUUID()
    await sql.query(`insert into auth.users (id, email) values ($1, $2)`, [
      user,
      `${user}@example.test`,
    ])
    const conversations: string[] = []
    for (const title of ['One', 'Two']) {
      const { rows } = await sql.query<{ id: string }>(
        `insert into assistant_conversations (user_id, title) values ($1, $2) returning id`,
        [user, title],
      )
      conversations.push(rows[0]!.id)
    }
    // Interleaved, as two tabs would have written them.
    for (let turn = 0; turn < 3; turn += 1)
      for (const [index, id] of conversations.entries())
        await sql.query(
          `insert into assistant_messages (conversation_id, user_id, role, content, status)
           values ($1, $2, 'user', $3, 'complete'), ($1, $2, 'assistant', $4, 'complete')`,
          [id, user, `question ${index}.${turn}`, `answer ${index}.${turn}`],
        )

    await cp(path.join(migrations, BRANCHES), path.join(dir, BRANCHES))
    expect((await runMigrations(sql, { dir })).map((applied) => applied.name)).toEqual([
      'assistant_message_branches',
    ])

    const store = createAssistantStore(sql)
    const claims = { sub: user, role: 'authenticated', aud: 'authenticated' }
    for (const [index, id] of conversations.entries()) {
      const listed = await store.listMessages(claims, id)
      expect(listed?.messages.map((message) => message.content)).toEqual(
        [0, 1, 2].flatMap((turn) => [`question ${index}.${turn}`, `answer ${index}.${turn}`]),
      )
      expect(listed?.messages.every((message) => message.versions === undefined)).toBe(true)
      const loaded = await store.loadForSend(claims, id, { messages: 20, chars: 100_000 })
      expect(loaded?.history).toHaveLength(6)
      // Each message follows the one stored before it; only the first has no parent.
      const { rows } = await sql.query<{ roots: number | string; unselected: number | string }>(
        `select count(*) filter (where parent_id is null) as roots,
                count(*) filter (where not selected) as unselected
         from assistant_messages where conversation_id = $1`,
        [id],
      )
      expect(Number(rows[0]!.roots)).toBe(1)
      expect(Number(rows[0]!.unselected)).toBe(0)
    }
  })
})
