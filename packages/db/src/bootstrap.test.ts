import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapLocalSupabase } from './bootstrap.ts'
import type { Sql } from './sql.ts'
import { createTestDatabase, databaseSetupTimeout } from './testing.ts'

let sql: Sql
beforeAll(async () => {
  sql = await createTestDatabase({ migrationsDir: false })
}, databaseSetupTimeout)
afterAll(async () => {
  await sql.close()
})

const userA = '00000000-0000-4000-8000-00000000000a'
const userB = '00000000-0000-4000-8000-00000000000b'

async function insertUser(id: string, email: string): Promise<void> {
  await sql.query(
    `insert into auth.users (id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', $2, '{}', '{}', now(), now())`,
    [id, email],
  )
}

describe('local Supabase bootstrap', () => {
  it('can run again on a bootstrapped database without losing data', async () => {
    await insertUser(userA, 'a@example.test')
    await bootstrapLocalSupabase(sql)
    await bootstrapLocalSupabase(sql)
    const { rows } = await sql.query<{ email: string }>('select email from auth.users')
    expect(rows).toEqual([{ email: 'a@example.test' }])
    const roles = await sql.query<{ rolname: string; rolbypassrls: boolean }>(
      `select rolname, rolbypassrls from pg_roles where rolname in ('anon', 'authenticated', 'service_role') order by rolname`,
    )
    expect(roles.rows).toEqual([
      { rolname: 'anon', rolbypassrls: false },
      { rolname: 'authenticated', rolbypassrls: false },
      { rolname: 'service_role', rolbypassrls: true },
    ])
  })

  it('creates the GoTrue tables the auth stand-in stores its state in', async () => {
    const { rows } = await sql.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'auth' order by table_name`,
    )
    expect(rows.map((row) => row.table_name)).toEqual([
      'identities',
      'mfa_amr_claims',
      'one_time_tokens',
      'refresh_tokens',
      'sessions',
      'users',
    ])
  })

  it('hashes passwords with bcrypt like GoTrue (pgcrypto in the extensions schema)', async () => {
    const { rows } = await sql.query<{ hash: string; ok: boolean }>(
      `with h as (select extensions.crypt('correct horse', extensions.gen_salt('bf', 4)) as hash)
       select hash, extensions.crypt('correct horse', hash) = hash as ok from h`,
    )
    expect(rows[0]?.hash).toMatch(/^\$2a\$04\$/)
    expect(rows[0]?.ok).toBe(true)
  })

  it('makes auth.uid(), auth.role() and auth.jwt() read the request claims, so RLS filters rows per user', async () => {
    await insertUser(userB, 'b@example.test')
    await sql.exec(`
      create table public.rls_smoke_notes (id serial primary key, user_id uuid not null, body text not null);
      alter table public.rls_smoke_notes enable row level security;
      create policy "users read their notes" on public.rls_smoke_notes for select to authenticated
        using ((select auth.uid()) = user_id);
      create policy "users add their notes" on public.rls_smoke_notes for insert to authenticated
        with check ((select auth.uid()) = user_id);
    `)
    await sql.query(
      `insert into public.rls_smoke_notes (user_id, body) values ($1, 'from a'), ($2, 'from b')`,
      [userA, userB],
    )

    const asUser = (
      claims: Record<string, unknown>,
      role: string,
      text: string,
      params: string[] = [],
    ) =>
      sql.transaction(async (tx) => {
        await tx.query(`select set_config('request.jwt.claims', $1, true)`, [
          JSON.stringify(claims),
        ])
        await tx.exec(`set local role ${role}`)
        return tx.query<Record<string, unknown>>(text, params)
      })

    const claims = { sub: userA, role: 'authenticated', email: 'a@example.test' }
    const who = await asUser(
      claims,
      'authenticated',
      'select auth.uid() as uid, auth.role() as role, auth.jwt() as jwt',
    )
    expect(who.rows[0]).toEqual({ uid: userA, role: 'authenticated', jwt: claims })

    const mine = await asUser(claims, 'authenticated', 'select body from public.rls_smoke_notes')
    expect(mine.rows).toEqual([{ body: 'from a' }])

    await expect(
      asUser(
        claims,
        'authenticated',
        `insert into public.rls_smoke_notes (user_id, body) values ($1, 'forged')`,
        [userB],
      ),
    ).rejects.toThrow(/row-level security/)

    const anon = await asUser({ role: 'anon' }, 'anon', 'select body from public.rls_smoke_notes')
    expect(anon.rows).toEqual([])

    const service = await asUser(
      { role: 'service_role' },
      'service_role',
      'select count(*)::int as n from public.rls_smoke_notes',
    )
    expect(service.rows[0]).toEqual({ n: 2 })

    // `set local` ends with the transaction: the next statement is the owner again.
    const after = await sql.query<{ role: string }>('select current_user as role')
    expect(after.rows[0]?.role).not.toBe('authenticated')
  })
})
