// The operator role in the database (20261126090000_operators_and_console.sql): the registry's
// read policies let only operators see rows, the token hash stays unreadable, and no client can
// grant itself the role.
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { systemClock } from '../../platform/clock.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { createDeployTokens } from '../deploy/tokens.ts'
import { cliActor } from '../deploy/actor.ts'
import { createOperatorRoles } from './operator-roles.ts'

let sql: Sql
const ada = crypto.randomUUID()
const bob = crypto.randomUUID()
const claimsOf = (sub: string): UserClaims => ({ sub, role: 'authenticated', aud: 'authenticated' })

beforeAll(async () => {
  sql = await createBffTestDatabase()
  for (const [id, email] of [
    [ada, 'ada@example.test'],
    [bob, 'bob@example.test'],
  ] as const) {
    await sql.query(
      `insert into auth.users (id, aud, role, email, created_at, updated_at)
       values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
      [id, email],
    )
  }
  // A remote with its channels, a token and their events.
  await createDeployTokens({ sql, clock: systemClock }).issue('billing', 'billing CI')
  await createOperatorRoles({ sql, clock: systemClock }).grant('ada@example.test', cliActor('root'))
}, databaseSetupTimeout)
afterAll(() => sql.close())

const registryTables = ['remotes', 'remote_channels', 'remote_versions', 'remote_deploy_events']

/** Counts the rows of each table the user can see. */
async function visible(sub: string): Promise<Record<string, number>> {
  return withUser(
    sql,
    claimsOf(sub),
    async (tx) => {
      const counts: Record<string, number> = {}
      for (const table of [...registryTables, 'operators']) {
        const { rows } = await tx.query<{ n: number }>(
          `select count(*)::int as n from public.${table}`,
        )
        counts[table] = Number(rows[0]?.n ?? 0)
      }
      const tokens = await tx.query<{ n: number }>(
        'select count(id)::int as n from public.deploy_tokens',
      )
      counts.deploy_tokens = Number(tokens.rows[0]?.n ?? 0)
      return counts
    },
    { readOnly: true },
  )
}

/** Runs `statement` as the user and returns the error it raised (or null). */
async function refusal(sub: string, statement: string, params: unknown[] = []) {
  try {
    await withUser(sql, claimsOf(sub), (tx) => tx.query(statement, params as never[]))
    return null
  } catch (error) {
    return error as Error
  }
}

describe('the operator role under row level security', () => {
  it('lets a non-operator’s withUser read nothing of the registry, its tokens or the operators', async () => {
    expect(await visible(bob)).toEqual({
      remotes: 0,
      remote_channels: 0,
      remote_versions: 0,
      remote_deploy_events: 0,
      operators: 0,
      deploy_tokens: 0,
    })
  })

  it('lets an operator read the registry, the tokens and the operators', async () => {
    const counts = await visible(ada)
    expect(counts.remotes).toBe(1)
    expect(counts.remote_channels).toBe(2)
    expect(counts.deploy_tokens).toBe(1)
    expect(counts.operators).toBe(1)
    // The token's issue and the grant.
    expect(counts.remote_deploy_events).toBe(2)
  })

  it('never lets anyone read a token’s hash, operators included', async () => {
    const error = await refusal(ada, 'select token_hash from public.deploy_tokens')
    expect(error?.message).toMatch(/permission denied/)
  })

  it('refuses a user who tries to grant themselves the role or write the registry', async () => {
    expect(
      (
        await refusal(bob, 'insert into public.operators (user_id, granted_by) values ($1, $2)', [
          bob,
          'me',
        ])
      )?.message,
    ).toMatch(/permission denied/)
    expect(
      (await refusal(ada, `update public.remote_channels set revision = revision + 1`))?.message,
    ).toMatch(/permission denied/)
    expect(
      (await refusal(ada, `delete from public.operators where user_id = $1`, [ada]))?.message,
    ).toMatch(/permission denied/)
  })

  it('answers is_operator() for the user of the statement', async () => {
    const ask = (sub: string) =>
      withUser(sql, claimsOf(sub), async (tx) => {
        const { rows } = await tx.query<{ is_operator: boolean }>('select public.is_operator()')
        return rows[0]?.is_operator
      })
    expect(await ask(ada)).toBe(true)
    expect(await ask(bob)).toBe(false)
  })
})
