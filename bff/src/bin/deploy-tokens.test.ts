import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../platform/clock.ts'
import { parseCommand, runDeployTokensCommand } from './deploy-tokens.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../testing/identity.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'

let sql: Sql
/** Where nothing listens: the command finds no local stack holding the database. */
let freePort: number

async function listening(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

beforeAll(async () => {
  sql = await createBffTestDatabase()
  const server = createServer()
  freePort = await listening(server)
  await new Promise((resolve) => server.close(resolve))
}, databaseSetupTimeout)
afterAll(() => sql.close())

/** Runs the command on the test database (which outlives it) and collects what it prints. */
async function run(argv: string[], env: Record<string, string> = {}) {
  const lines: string[] = []
  const code = await runDeployTokensCommand(argv, {
    env: { PORT: String(freePort), ...env },
    write: (line) => lines.push(line),
    openDatabase: () => Promise.resolve({ ...sql, close: () => Promise.resolve() }),
  })
  return { code, text: lines.join('\n') }
}

describe('npm run deploy-tokens', () => {
  it('issues a token that deploys its remote, lists it, and revokes it', async () => {
    const issued = await run(['issue', 'billing', '--label', 'billing CI'])
    expect(issued.code).toBe(0)
    const token = /^ {2}(tdt_billing_\S+)$/m.exec(issued.text)?.[1]
    const id = /id ([0-9a-f-]{36})/.exec(issued.text)?.[1]
    expect(token).toBeDefined()
    expect(issued.text).toContain('cannot be shown again')
    const tokens = createDeployTokens({ sql, clock: systemClock })
    expect(await tokens.authenticate(token!)).toMatchObject({
      remote: 'billing',
      label: 'billing CI',
    })

    const listed = await run(['list', 'billing'])
    expect(listed.code).toBe(0)
    const line = listed.text.split('\n').find((each) => each.startsWith(id!))
    expect(line).toContain('"billing CI"')
    expect(line).toMatch(/last used \d{4}-\d\d-\d\d \d\d:\d\d/)
    expect(line).not.toContain('REVOKED')
    // The token itself is never printed again.
    expect(listed.text).not.toContain(token!)

    expect(await run(['revoke', id!])).toEqual({
      code: 0,
      text: `Revoked ${id}: it is refused from its next use.`,
    })
    expect(await tokens.authenticate(token!)).toBeNull()
    expect((await run(['list'])).text.split('\n').find((each) => each.startsWith(id!))).toContain(
      'REVOKED',
    )
    const again = await run(['revoke', id!])
    expect(again.code).toBe(1)
    expect(again.text).toContain('No live token has the id')
  })

  it('lists only the remote asked for, newest first', async () => {
    await run(['issue', 'auth', '--label=auth one'])
    await run(['issue', 'auth', '--label', 'auth two'])
    await run(['issue', 'ai', '--label', 'ai team'])
    const lines = (await run(['list', 'auth'])).text.split('\n')
    expect(lines.map((line) => /"([^"]+)"/.exec(line)?.[1])).toEqual(['auth two', 'auth one'])
  })

  it('refuses bad input with what to type instead, touching nothing (exit code 2)', async () => {
    const before = await createDeployTokens({ sql, clock: systemClock }).list()
    const cases: [string[], RegExp][] = [
      [[], /No command given[\s\S]*issue <remote> --label/],
      [['grant', 'billing'], /Unknown command "grant"/],
      [['issue', 'billing'], /Say who the token is for/],
      [['issue', 'billing', '--label', '   '], /label is empty/],
      [['issue', 'billing', '--label', 'x'.repeat(81)], /at most 80 characters/],
      [['issue', 'Billing!', '--label', 'x'], /The remote "Billing!"/],
      [['issue', '--label', 'x'], /Name the remote/],
      [['issue', 'auth', 'ai', '--label', 'x'], /One remote at a time/],
      [['list', '--all'], /Unknown option --all/],
      [['list', '--label', 'x'], /Only `issue` takes a --label/],
      [['revoke'], /Revoke one token by its id/],
      [['revoke', "1' or '1'='1"], /The token id: A token id is a UUID/],
    ]
    for (const [argv, message] of cases) {
      const result = await run(argv)
      expect(result.code, argv.join(' ')).toBe(2)
      expect(result.text, argv.join(' ')).toMatch(message)
    }
    expect(await createDeployTokens({ sql, clock: systemClock }).list()).toEqual(before)
  })

  it('leaves a running local stack’s database alone', async () => {
    const stack = createServer((_request, response) => response.end('{"status":"ok"}'))
    const port = await listening(stack)
    try {
      const lines: string[] = []
      let opened = false
      const code = await runDeployTokensCommand(['list'], {
        env: { PORT: String(port) },
        write: (line) => lines.push(line),
        openDatabase: () => {
          opened = true
          return Promise.resolve(sql)
        },
      })
      expect(code).toBe(1)
      expect(opened).toBe(false)
      expect(lines.join('\n')).toMatch(/local stack is running[\s\S]*deploy-tokens\.json/)
    } finally {
      await new Promise((resolve) => stack.close(resolve))
    }
  })

  it('parses a label with spaces and equals signs as given', () => {
    expect(parseCommand(['issue', 'billing', '--label=CI a=b'])).toEqual({
      name: 'issue',
      remote: 'billing',
      label: 'CI a=b',
    })
  })
})
