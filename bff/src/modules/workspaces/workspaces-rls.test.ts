// Workspaces under row level security (20261126111000_workspaces.sql): each role — owner, admin,
// member, outsider, anon — against each new table and operation. Members read their workspace and
// its members; only owners and admins read its invites; nobody reads a token hash; no client
// writes anything (the BFF's own connection does, after its checks).
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { asViewer, type AsViewerWork } from '../../testing/rls.ts'

let sql: Sql
const people = {
  owner: crypto.randomUUID(),
  admin: crypto.randomUUID(),
  member: crypto.randomUUID(),
  outsider: crypto.randomUUID(),
}
type Who = keyof typeof people | 'anon'
const team = crypto.randomUUID()
const invite = crypto.randomUUID()
const tables = ['workspaces', 'workspace_members', 'workspace_invites'] as const

/** Runs `fn` as the person, or as `anon` with no user at all. */
const as = <T>(who: Who, fn: AsViewerWork<T>): Promise<T> =>
  asViewer(sql, who === 'anon' ? 'anon' : people[who], fn)

async function refusal(who: Who, statement: string, params: unknown[] = []) {
  try {
    await as(who, (tx) => tx.query(statement, params as never[]))
    return null
  } catch (error) {
    return error as Error
  }
}

/** The rows of each table `who` can see, in the team workspace (and their own personal one). */
async function visible(who: Who): Promise<Record<string, number>> {
  return as(who, async (tx) => {
    const counts: Record<string, number> = {}
    for (const table of tables) {
      const column = table === 'workspaces' ? 'id' : 'workspace_id'
      const { rows } = await tx.query<{ n: number }>(
        `select count(*)::int as n from public.${table} where ${column} = $1`,
        [team],
      )
      counts[table] = Number(rows[0]?.n ?? 0)
    }
    return counts
  })
}

beforeAll(async () => {
  sql = await createBffTestDatabase()
  for (const [name, id] of Object.entries(people)) {
    await sql.query(
      `insert into auth.users (id, aud, role, email, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
      [id, `${name}@example.test`],
    )
    // The first sign-in creates the profile, and with it the personal workspace.
    await sql.query('insert into public.profiles (user_id) values ($1)', [id])
  }
  await sql.query(
    `insert into public.workspaces (id, name, kind, created_by) values ($1, 'Team', 'team', $2)`,
    [team, people.owner],
  )
  for (const role of ['owner', 'admin', 'member'] as const) {
    await sql.query(
      'insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)',
      [team, people[role], role],
    )
  }
  await sql.query(
    `insert into public.workspace_invites (id, workspace_id, email, role, token_hash, invited_by, expires_at)
     values ($1, $2, 'new@example.test', 'member', $3, $4, now() + interval '7 days')`,
    [invite, team, 'a'.repeat(64), people.owner],
  )
}, databaseSetupTimeout)
afterAll(() => sql.close())

describe('workspaces under row level security', () => {
  it('gives each user exactly one personal workspace, which only they can see', async () => {
    const { rows } = await sql.query<{ created_by: string; members: number }>(
      `select w.created_by, (select count(*)::int from public.workspace_members m where m.workspace_id = w.id) as members
       from public.workspaces w where kind = 'personal'`,
    )
    expect(rows.map((row) => row.created_by).sort()).toEqual(Object.values(people).sort())
    expect(rows.every((row) => Number(row.members) === 1)).toBe(true)
    const seen = await as(
      'member',
      async (tx) =>
        (
          await tx.query<{ n: number }>(
            `select count(*)::int as n from public.workspaces where kind = 'personal'`,
          )
        ).rows[0]?.n,
    )
    expect(Number(seen)).toBe(1)
    await expect(
      sql.query(
        `insert into public.workspaces (name, kind, created_by) values ('Two', 'personal', $1)`,
        [people.member],
      ),
    ).rejects.toThrow(/duplicate key|unique/)
  })

  it('lets owners and admins read the workspace, its members and its invites', async () => {
    for (const who of ['owner', 'admin'] as const) {
      expect(await visible(who)).toEqual({
        workspaces: 1,
        workspace_members: 3,
        workspace_invites: 1,
      })
    }
  })

  it('lets a member read the workspace and its members, not its invites', async () => {
    expect(await visible('member')).toEqual({
      workspaces: 1,
      workspace_members: 3,
      workspace_invites: 0,
    })
  })

  it('shows an outsider nothing of the workspace', async () => {
    expect(await visible('outsider')).toEqual({
      workspaces: 0,
      workspace_members: 0,
      workspace_invites: 0,
    })
  })

  it('refuses anon every table', async () => {
    for (const table of tables) {
      expect((await refusal('anon', `select 1 from public.${table}`))?.message, table).toMatch(
        /permission denied/,
      )
    }
  })

  it('never lets anyone read a token hash, owners included', async () => {
    for (const who of ['owner', 'admin', 'member', 'outsider', 'anon'] as const) {
      expect(
        (await refusal(who, 'select token_hash from public.workspace_invites'))?.message,
        who,
      ).toMatch(/permission denied/)
    }
  })

  it('refuses every write to every role, owners included', async () => {
    const writes = [
      [
        `insert into public.workspaces (name, kind, created_by) values ('Mine', 'team', $1)`,
        [people.owner],
      ],
      [`update public.workspaces set name = 'Renamed' where id = $1`, [team]],
      [`delete from public.workspaces where id = $1`, [team]],
      [
        `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'owner')`,
        [team, people.outsider],
      ],
      [`update public.workspace_members set role = 'owner' where workspace_id = $1`, [team]],
      [`delete from public.workspace_members where workspace_id = $1`, [team]],
      [
        `insert into public.workspace_invites (workspace_id, email, role, token_hash, expires_at)
         values ($1, 'x@example.test', 'member', $2, now())`,
        [team, 'b'.repeat(64)],
      ],
      [`update public.workspace_invites set accepted_at = now() where id = $1`, [invite]],
      [`delete from public.workspace_invites where id = $1`, [invite]],
    ] as const
    for (const who of ['owner', 'admin', 'member', 'outsider', 'anon'] as const) {
      for (const [statement, params] of writes) {
        const error = await refusal(who, statement, [...params])
        expect(error?.message, `${who}: ${statement}`).toMatch(/permission denied/)
      }
    }
    expect(await visible('owner')).toEqual({
      workspaces: 1,
      workspace_members: 3,
      workspace_invites: 1,
    })
  })

  it('answers workspace_role() for the user of the statement, and refuses it to anon', async () => {
    const roleOf = (who: keyof typeof people) =>
      as(who, async (tx) => {
        const { rows } = await tx.query<{ role: string | null }>(
          'select public.workspace_role($1) as role',
          [team],
        )
        return rows[0]?.role ?? null
      })
    expect(await roleOf('owner')).toBe('owner')
    expect(await roleOf('admin')).toBe('admin')
    expect(await roleOf('member')).toBe('member')
    expect(await roleOf('outsider')).toBeNull()
    expect((await refusal('anon', 'select public.workspace_role($1)', [team]))?.message).toMatch(
      /permission denied/,
    )
  })

  it('keeps the helpers that create workspaces out of every client’s reach', async () => {
    for (const who of ['member', 'anon'] as const) {
      const error = await refusal(who, 'select tessera_private.ensure_personal_workspace($1)', [
        people.outsider,
      ])
      expect(error?.message, who).toMatch(/permission denied/)
    }
  })

  it('keeps the session table closed: nobody reads or moves a session’s workspace', async () => {
    expect(
      (await refusal('owner', 'update public.bff_sessions set workspace_id = $1', [team]))?.message,
    ).toMatch(/permission denied/)
  })
})
