import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommand, runOperatorsCommand } from './operators.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../testing/identity.ts'

let sql: Sql
/** Where nothing listens: the command finds no local stack holding the database. */
let freePort: number

beforeAll(async () => {
  sql = await createBffTestDatabase()
  await sql.query(
    `insert into auth.users (id, aud, role, email, created_at, updated_at)
     values (gen_random_uuid(), 'authenticated', 'authenticated', 'ada@example.test', now(), now())`,
  )
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  freePort = (server.address() as AddressInfo).port
  await new Promise((resolve) => server.close(resolve))
}, databaseSetupTimeout)
afterAll(() => sql.close())

/** Runs the command on the test database (which outlives it) and collects what it prints. */
async function run(argv: string[]) {
  const lines: string[] = []
  const code = await runOperatorsCommand(argv, {
    env: { PORT: String(freePort), USER: 'root' },
    write: (line) => lines.push(line),
    openDatabase: () => Promise.resolve({ ...sql, close: () => Promise.resolve() }),
  })
  return { code, text: lines.join('\n') }
}

describe('npm run operators', () => {
  it('grants the role once, lists it, revokes it, and audits each change as the cli', async () => {
    expect(await run(['grant', 'ada@example.test'])).toMatchObject({
      code: 0,
      text: expect.stringContaining('is now an operator'),
    })
    expect((await run(['grant', 'ADA@example.test'])).text).toContain('an operator already')
    const listed = await run(['list'])
    expect(listed.text).toMatch(
      /^ada@example\.test\s+granted \d{4}-\d\d-\d\d \d\d:\d\d UTC by cli:root$/,
    )
    expect(await run(['revoke', 'ada@example.test'])).toMatchObject({ code: 0 })
    expect(await run(['revoke', 'ada@example.test'])).toMatchObject({
      code: 1,
      text: expect.stringContaining('is not an operator'),
    })
    expect((await run(['list'])).text).toBe('No operators.')
    const { rows } = await sql.query<{ kind: string; source: string; actor: string }>(
      `select kind, source, actor from public.remote_deploy_events
        where kind like 'operator_%' order by id`,
    )
    expect(rows).toEqual([
      { kind: 'operator_granted', source: 'cli', actor: 'cli:root' },
      { kind: 'operator_revoked', source: 'cli', actor: 'cli:root' },
    ])
    // Every replica drops its cached role: the invalidation went through the outbox.
    const events = await sql.query<{ n: number }>(
      `select count(*)::int as n from public.live_events
        where event -> 'data' ->> 'cache' = 'roles'`,
    )
    expect(Number(events.rows[0]?.n)).toBe(2)
  })

  it('says so when no account has the email', async () => {
    expect(await run(['grant', 'nobody@example.test'])).toMatchObject({
      code: 1,
      text: expect.stringContaining('No account has the email nobody@example.test'),
    })
  })

  it('refuses input it cannot use with exit code 2', async () => {
    for (const argv of [
      [],
      ['grant'],
      ['grant', 'not-an-email'],
      ['list', 'x'],
      ['drop'],
      ['grant', 'a@b.c', '--force'],
    ]) {
      expect((await run(argv)).code, argv.join(' ')).toBe(2)
    }
    expect(parseCommand(['revoke', 'a@b.test'])).toEqual({ name: 'revoke', email: 'a@b.test' })
  })
})
