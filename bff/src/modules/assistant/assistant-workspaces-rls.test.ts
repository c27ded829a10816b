// Conversations in workspaces and the team's token counters under row level security
// (20261126121000_assistant_workspaces.sql): each role — author, member, admin, outsider, anon —
// against each operation. The author reads and writes their own; a shared conversation (and its
// messages) is readable by the members of its workspace and writable by nobody else; the pool is
// readable by members, each share by its member and the owners and admins; no client writes any
// counter or hold.
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asViewer, type AsViewerWork } from '../../testing/rls.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'

let sql: Sql
const people = {
  author: crypto.randomUUID(),
  member: crypto.randomUUID(),
  admin: crypto.randomUUID(),
  outsider: crypto.randomUUID(),
}
type Who = keyof typeof people | 'anon'
const everyone: Who[] = ['author', 'member', 'admin', 'outsider', 'anon']
const team = crypto.randomUUID()
const other = crypto.randomUUID()
const privateConversation = crypto.randomUUID()
const sharedConversation = crypto.randomUUID()
const period = '2026-11-01T00:00:00Z'

/** Runs `fn` as the person, or as `anon` with no user at all. */
const as = <T>(who: Who, fn: AsViewerWork<T>): Promise<T> =>
  asViewer(sql, who === 'anon' ? 'anon' : people[who], fn)

/** A refusal by the database's rights (no grant, a policy's check), not a broken statement. */
const refusedByRights = (error: unknown) =>
  error instanceof Error && /permission denied|row-level security/i.test(error.message)

/** How many rows `who` sees (a read refused for want of a grant counts as none). */
async function count(who: Who, statement: string, params: unknown[] = []): Promise<number> {
  try {
    const { rows } = await as(who, (tx) => tx.query<{ n: number }>(statement, params as never[]))
    return Number(rows[0]?.n ?? 0)
  } catch (error) {
    if (refusedByRights(error)) return 0
    throw error
  }
}

/** How many rows `who` changed (a write refused by grants or policies changed none). */
async function changed(who: Who, statement: string, params: unknown[] = []): Promise<number> {
  try {
    return (await as(who, (tx) => tx.query(statement, params as never[]))).rowCount
  } catch (error) {
    if (refusedByRights(error)) return 0
    throw error
  }
}

beforeAll(async () => {
  sql = await createBffTestDatabase()
  for (const [name, id] of Object.entries(people)) {
    await sql.query(
      `insert into auth.users (id, aud, role, email, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
      [id, `${name}@example.test`],
    )
  }
  await sql.query(
    `insert into public.workspaces (id, name, kind, created_by) values
       ($1, 'Team', 'team', $3), ($2, 'Other', 'team', $4)`,
    [team, other, people.admin, people.outsider],
  )
  await sql.query(
    `insert into public.workspace_members (workspace_id, user_id, role) values
       ($1, $2, 'member'), ($1, $3, 'member'), ($1, $4, 'admin'), ($5, $6, 'owner')`,
    [team, people.author, people.member, people.admin, other, people.outsider],
  )
  await sql.query(
    `insert into public.assistant_conversations (id, user_id, workspace_id, title, shared) values
       ($1, $3, $4, 'Private', false), ($2, $3, $4, 'Shared', true)`,
    [privateConversation, sharedConversation, people.author, team],
  )
  for (const conversation of [privateConversation, sharedConversation]) {
    await sql.query(
      `insert into public.assistant_messages (conversation_id, user_id, role, content, status)
       values ($1, $2, 'user', 'hello', 'complete')`,
      [conversation, people.author],
    )
  }
  await sql.query(
    `insert into public.workspace_usage (workspace_id, period_start, used_tokens, limit_tokens)
     values ($1, $2, 30, 1000)`,
    [team, period],
  )
  for (const id of [people.author, people.member]) {
    await sql.query(
      `insert into public.workspace_member_usage (workspace_id, user_id, period_start, used_tokens)
       values ($1, $2, $3, 15)`,
      [team, id, period],
    )
    await sql.query(
      `insert into public.workspace_usage_daily (workspace_id, user_id, day, model, tokens)
       values ($1, $2, '2026-11-02', 'gpt-4.1-mini', 15)`,
      [team, id],
    )
  }
}, databaseSetupTimeout)
afterAll(() => sql.close())

const conversationCount = (id: string) =>
  Object.fromEntries(
    everyone.map((who) => [
      who,
      count(who, 'select count(*)::int as n from assistant_conversations where id = $1', [id]),
    ]),
  )

async function settled(record: Record<string, Promise<number>>) {
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(record)) out[key] = await value
  return out
}

describe('conversations in a workspace, by role', () => {
  it('shows a private conversation to its author only', async () => {
    expect(await settled(conversationCount(privateConversation))).toEqual({
      author: 1,
      member: 0,
      admin: 0,
      outsider: 0,
      anon: 0,
    })
  })

  it('shows a shared conversation and its messages to the members of its workspace only', async () => {
    expect(await settled(conversationCount(sharedConversation))).toEqual({
      author: 1,
      member: 1,
      admin: 1,
      outsider: 0,
      anon: 0,
    })
    const messages: Record<string, number> = {}
    for (const who of everyone) {
      messages[who] = await count(
        who,
        'select count(*)::int as n from assistant_messages where conversation_id = $1',
        [sharedConversation],
      )
    }
    expect(messages).toEqual({ author: 1, member: 1, admin: 1, outsider: 0, anon: 0 })
  })

  it('lets only the author rename, share or delete, even a shared conversation', async () => {
    for (const who of ['member', 'admin', 'outsider', 'anon'] as const) {
      expect(
        await changed(who, `update assistant_conversations set title = 'Taken' where id = $1`, [
          sharedConversation,
        ]),
      ).toBe(0)
      expect(
        await changed(who, 'update assistant_conversations set shared = false where id = $1', [
          sharedConversation,
        ]),
      ).toBe(0)
      expect(
        await changed(who, 'delete from assistant_conversations where id = $1', [
          sharedConversation,
        ]),
      ).toBe(0)
      expect(
        await changed(
          who,
          `insert into assistant_messages (conversation_id, user_id, role, content, status)
           values ($1, $2, 'user', 'me too', 'complete')`,
          [sharedConversation, who === 'anon' ? people.member : people[who]],
        ),
      ).toBe(0)
    }
    expect(
      await changed('author', `update assistant_conversations set shared = true where id = $1`, [
        privateConversation,
      ]),
    ).toBe(1)
    await sql.query('update assistant_conversations set shared = false where id = $1', [
      privateConversation,
    ])
  })

  it('lets a user create a conversation only in a workspace they belong to', async () => {
    const insert = `insert into assistant_conversations (user_id, workspace_id, title) values ($1, $2, 'New')`
    expect(await changed('member', insert, [people.member, team])).toBe(1)
    expect(await changed('member', insert, [people.member, other])).toBe(0)
    expect(await changed('outsider', insert, [people.outsider, team])).toBe(0)
    expect(await changed('anon', insert, [people.member, team])).toBe(0)
  })
})

describe('the team’s token counters, by role', () => {
  const read = async (table: string) => {
    const out: Record<string, number> = {}
    for (const who of everyone)
      out[who] = await count(
        who,
        `select count(*)::int as n from ${table} where workspace_id = $1`,
        [team],
      )
    return out
  }

  it('shows the pool to every member, and each share to its member and the admins', async () => {
    expect(await read('workspace_usage')).toEqual({
      author: 1,
      member: 1,
      admin: 1,
      outsider: 0,
      anon: 0,
    })
    expect(await read('workspace_member_usage')).toEqual({
      author: 1,
      member: 1,
      admin: 2,
      outsider: 0,
      anon: 0,
    })
    expect(await read('workspace_usage_daily')).toEqual({
      author: 1,
      member: 1,
      admin: 2,
      outsider: 0,
      anon: 0,
    })
    expect(await read('workspace_reservations')).toEqual({
      author: 0,
      member: 0,
      admin: 0,
      outsider: 0,
      anon: 0,
    })
  })

  it('lets no client write a counter, a hold or the daily usage', async () => {
    for (const who of everyone) {
      expect(
        await changed(who, 'update workspace_usage set used_tokens = 0 where workspace_id = $1', [
          team,
        ]),
      ).toBe(0)
      expect(
        await changed(
          who,
          'update workspace_member_usage set used_tokens = 0 where workspace_id = $1',
          [team],
        ),
      ).toBe(0)
      expect(
        await changed(who, 'delete from workspace_usage_daily where workspace_id = $1', [team]),
      ).toBe(0)
      expect(
        await changed(
          who,
          `select tessera_private.reserve_workspace_tokens(gen_random_uuid(), $1, $2, $3, 1000000, 1, 'x')`,
          [team, people.admin, period],
        ),
      ).toBe(0)
    }
    const { rows } = await sql.query<{ used: number }>(
      'select used_tokens as used from workspace_usage where workspace_id = $1',
      [team],
    )
    expect(rows[0]?.used).toBe(30)
  })
})
