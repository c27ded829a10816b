import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { createProfiles } from '../../modules/identity/profiles.ts'
import { execute, queries } from './query.ts'
import { withUser } from './with-user.ts'
import type { UserClaims } from './with-user.ts'

let sql: Sql
const ada = crypto.randomUUID()
const bob = crypto.randomUUID()
const claimsOf = (sub: string): UserClaims => ({ sub, role: 'authenticated', aud: 'authenticated' })

beforeAll(async () => {
  sql = await createBffTestDatabase()
  for (const [id, name] of [
    [ada, 'Ada'],
    [bob, 'Bob'],
  ] as const) {
    await sql.query(
      `insert into auth.users (id, aud, role, email, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
      [id, `${name.toLowerCase()}@example.test`],
    )
    await sql.query('insert into public.profiles (user_id, display_name) values ($1, $2)', [
      id,
      name,
    ])
  }
  await sql.query(
    `insert into public.bff_sessions (user_id, token_hash, access_token, refresh_token, access_expires_at, auth_user, device)
     values ($1, 'hash', 'access', 'refresh', now() + interval '1 hour', '{}'::jsonb, 'Test')`,
    [ada],
  )
}, databaseSetupTimeout)
afterAll(() => sql.close())

/** Runs statements as an API role with optional claims, in a transaction that is rolled back. */
async function as<T>(
  role: 'anon' | 'authenticated',
  claims: UserClaims | null,
  fn: (tx: Parameters<Parameters<Sql['transaction']>[0]>[0]) => Promise<T>,
): Promise<T | Error> {
  const rollback = new Error('rollback')
  let result: T | Error = rollback
  await sql
    .transaction(async (tx) => {
      await tx.query(`select set_config('role', $1, true)`, [role])
      if (claims !== null)
        await tx.query(`select set_config('request.jwt.claims', $1, true)`, [
          JSON.stringify(claims),
        ])
      try {
        result = await fn(tx)
      } catch (error) {
        result = error as Error
      }
      throw rollback
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error
    })
  return result
}

describe('row level security', () => {
  it('lets a user read their own profile only', async () => {
    const rows = await withUser(
      sql,
      claimsOf(ada),
      async (tx) => (await execute(queries.selectFrom('profiles').select('display_name'), tx)).rows,
    )
    expect(rows).toEqual([{ display_name: 'Ada' }])
  })

  it('does not let a user change or claim another user’s profile', async () => {
    const updated = await withUser(sql, claimsOf(ada), async (tx) =>
      execute(
        queries.updateTable('profiles').set({ display_name: 'Hacked' }).where('user_id', '=', bob),
        tx,
      ),
    )
    expect(updated.rowCount).toBe(0)
    const inserted = await as('authenticated', claimsOf(ada), (tx) =>
      tx.query('insert into public.profiles (user_id, display_name) values ($1, $2)', [
        crypto.randomUUID(),
        'Mallory',
      ]),
    )
    expect(String(inserted)).toMatch(/row-level security|foreign key/)
    const deleted = await as('authenticated', claimsOf(ada), (tx) =>
      tx.query('delete from public.profiles where user_id = $1', [ada]),
    )
    expect(deleted).toMatchObject({ rowCount: 0 })
    const { rows } = await sql.query<{ display_name: string }>(
      'select display_name from public.profiles order by display_name',
    )
    expect(rows.map((row) => row.display_name)).toEqual(['Ada', 'Bob'])
  })

  it('lets a user write only the display name, not the timestamps', async () => {
    const stamped = await as('authenticated', claimsOf(ada), (tx) =>
      tx.query(
        `update public.profiles set created_at = now() - interval '9 years' where user_id = $1`,
        [ada],
      ),
    )
    expect(String(stamped)).toMatch(/permission denied/)
  })

  it('shows anon nothing', async () => {
    const profiles = await as('anon', null, (tx) => tx.query('select * from public.profiles'))
    expect(profiles).toMatchObject({ rows: [] })
  })

  it('keeps bff_sessions away from anon and authenticated users, even their own rows', async () => {
    for (const role of ['anon', 'authenticated'] as const) {
      const read = await as(role, claimsOf(ada), (tx) =>
        tx.query('select * from public.bff_sessions'),
      )
      expect(String(read), role).toMatch(/permission denied/)
    }
  })

  it('ends the role and claims with the transaction', async () => {
    await withUser(sql, claimsOf(ada), async () => undefined)
    const { rows } = await sql.query<{ role: string; claims: string | null }>(
      `select current_user as role, nullif(current_setting('request.jwt.claims', true), '') as claims`,
    )
    expect(rows[0]?.role).not.toBe('authenticated')
    expect(rows[0]?.claims ?? null).toBeNull()
  })
})

describe('createProfiles', () => {
  it('creates a profile at the first sign-in and keeps it on the next', async () => {
    const carol = crypto.randomUUID()
    await sql.query(
      `insert into auth.users (id, aud, role, email) values ($1, 'authenticated', 'authenticated', 'carol@example.test')`,
      [carol],
    )
    const profiles = createProfiles(sql)
    expect((await profiles.ensure(claimsOf(carol), 'Carol')).display_name).toBe('Carol')
    expect((await profiles.ensure(claimsOf(carol), 'Ignored')).display_name).toBe('Carol')
    const renamed = await profiles.update(claimsOf(carol), 'Caroline')
    expect(renamed?.display_name).toBe('Caroline')
    expect(renamed?.updated_at.getTime()).toBeGreaterThanOrEqual(
      renamed?.created_at.getTime() ?? Infinity,
    )
  })
})
