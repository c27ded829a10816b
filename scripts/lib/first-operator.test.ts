import { mkdtemp, rm, stat, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startTestSupabase } from '@tessera/emulators/supabase/test-support'
import type { TestSupabase } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCAL_OPERATOR_EMAIL, OPERATOR_FILE, ensureFirstOperator } from './first-operator.ts'

let supabase: TestSupabase
let dataDir: string

beforeAll(async () => {
  supabase = await startTestSupabase()
  dataDir = await mkdtemp(path.join(tmpdir(), 'tessera-operator-'))
}, 60_000)
afterAll(async () => {
  await supabase.stop()
  await rm(dataDir, { recursive: true, force: true })
})

const ensure = () =>
  ensureFirstOperator({
    dataDir,
    sql: supabase.db,
    supabaseUrl: supabase.url,
    serviceRoleKey: supabase.serviceRoleKey,
  })

async function signsIn(password: string): Promise<boolean> {
  const { error } = await supabase
    .client()
    .auth.signInWithPassword({ email: LOCAL_OPERATOR_EMAIL, password })
  return error === null
}

async function grants(): Promise<number> {
  const { rows } = await supabase.db.query<{ n: number }>(
    `select count(*)::int as n from public.remote_deploy_events where kind = 'operator_granted'`,
  )
  return Number(rows[0]?.n)
}

describe('the local stack’s first operator', () => {
  it('creates a confirmed operator whose password is kept in a file only its owner reads', async () => {
    const operator = await ensure()
    expect(operator.email).toBe(LOCAL_OPERATOR_EMAIL)
    expect(await signsIn(operator.password)).toBe(true)
    expect((await stat(path.join(dataDir, OPERATOR_FILE))).mode & 0o777).toBe(0o600)
    const { rows } = await supabase.db.query<{ granted_by: string }>(
      `select o.granted_by from public.operators o join auth.users u on u.id = o.user_id
        where u.email = $1`,
      [LOCAL_OPERATOR_EMAIL],
    )
    expect(rows).toEqual([{ granted_by: 'npm start' }])
    expect(await grants()).toBe(1)
  })

  it('changes nothing on the next start', async () => {
    const first = await ensure()
    const again = await ensure()
    expect(again).toEqual(first)
    expect(await grants()).toBe(1)
  })

  it('sets a new password when the file is gone but the account is not', async () => {
    const before = await ensure()
    await unlink(path.join(dataDir, OPERATOR_FILE))
    const after = await ensure()
    expect(after.password).not.toBe(before.password)
    expect(await signsIn(after.password)).toBe(true)
    expect(await signsIn(before.password)).toBe(false)
  })
})
