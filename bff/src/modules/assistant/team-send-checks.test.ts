import { ApiError, entitlementsOf } from '@tessera/contracts'
import type { Entitlements } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../../platform/clock.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { IMAGE_TOKEN_BOUND } from './estimate.ts'
import type { PromptMessage } from './estimate.ts'
import { createQuota } from './quota.ts'
import type { AssistantDeps } from './send.ts'
import { createTeamSendChecks } from './team-send-checks.ts'

let sql: Sql
let owner: string
let member: string
let team: string

const settings = {
  moderation: false,
  firstTokenTimeoutMs: 1000,
  idleTimeoutMs: 1000,
  maxAnswerTokens: 100,
  historyMessages: 10,
  historyChars: 1000,
  ratePerMinute: 100,
}

async function newUser(email: string): Promise<string> {
  const id = crypto.randomUUID()
  await sql.query(
    `insert into auth.users (id, aud, role, email, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
    [id, email],
  )
  return id
}

/** The checks, with the entitlements billing would answer for the team. */
function checksWith(entitlements: Entitlements) {
  const deps = {
    sql,
    clock: systemClock,
    settings,
    quota: createQuota(sql),
    entitlementsForUser: async () => entitlements,
  } as unknown as AssistantDeps & { quota: ReturnType<typeof createQuota> }
  return createTeamSendChecks(deps)
}

const send = (checks: ReturnType<typeof checksWith>) =>
  checks.hold(
    { userId: member, claims: { sub: member, role: 'authenticated' } },
    { conversationId: crypto.randomUUID(), content: 'hello', requestId: 'r' },
    {
      workspaceId: team,
      history: [],
      conversation: {
        id: crypto.randomUUID(),
        title: null,
        createdAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      },
    },
  )

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => (error instanceof ApiError ? error : Promise.reject(error)),
  )

beforeAll(async () => {
  sql = await createBffTestDatabase()
  owner = await newUser('olga@example.test')
  member = await newUser('max@example.test')
  const { rows } = await sql.query<{ id: string }>(
    `insert into public.workspaces (name, kind, created_by) values ('Orbit', 'team', $1) returning id`,
    [owner],
  )
  team = rows[0]!.id
  await sql.query(
    `insert into public.workspace_members (workspace_id, user_id, role, monthly_token_cap)
     values ($1, $2, 'owner', null), ($1, $3, 'member', 50)`,
    [team, owner, member],
  )
}, databaseSetupTimeout)
afterAll(() => sql.close())

const seats = (pastDue: boolean, id = team): Entitlements => ({
  ...entitlementsOf(
    { plan: 'team', status: pastDue ? 'past_due' : 'active' },
    { id, kind: 'team', role: 'member', seats: 2 },
  ),
})

describe('a send in a team workspace', () => {
  it('is refused while the team’s payment is past due, naming who can fix it', async () => {
    const error = await refusal(send(checksWith(seats(true))))
    expect(error?.code).toBe('team_past_due')
    expect(error?.message).toContain('Orbit')
    expect(error?.message).toContain('olga@example.test')
    const { rows } = await sql.query('select 1 from workspace_reservations')
    expect(rows).toHaveLength(0)
  })

  it('stops a member at their cap with a sentence naming the owners and admins', async () => {
    const error = await refusal(send(checksWith(seats(false))))
    expect(error?.code).toBe('member_cap_reached')
    expect(error?.message).toMatch(/Orbit.*olga@example\.test/)
    expect(error?.details).toMatchObject({ cap: 50, admins: ['olga@example.test'] })
  })

  it('names the team when its pool is used up', async () => {
    await sql.query(
      'update workspace_members set monthly_token_cap = null where workspace_id = $1',
      [team],
    )
    const empty = { ...seats(false), monthlyTokens: 10 }
    const error = await refusal(send(checksWith(empty)))
    expect(error?.code).toBe('team_quota_exceeded')
    expect(error?.message).toContain('Orbit has used its 10 shared tokens')
  })

  it('holds from the pool when billing answered for another workspace', async () => {
    const prepared = await send(checksWith(seats(true, crypto.randomUUID())))
    expect(prepared.reservation.counters.team?.pool.reserved).toBe(prepared.reservation.tokens)
  })

  it('sends and holds for the attachments of its question', async () => {
    const checks = checksWith(seats(false))
    const question: PromptMessage = {
      role: 'user',
      content: 'hello',
      parts: [{ type: 'image', dataUrl: 'data:image/png;base64,AAAA' }],
    }
    const prepared = await checks.hold(
      { userId: member, claims: { sub: member, role: 'authenticated' } },
      { conversationId: crypto.randomUUID(), content: 'hello', requestId: 'r', question },
      {
        workspaceId: team,
        history: [],
        conversation: {
          id: crypto.randomUUID(),
          title: null,
          createdAt: new Date().toISOString(),
          updatedAt: new Date().toISOString(),
        },
      },
    )
    expect(prepared.messages.at(-1)).toEqual(question)
    expect(prepared.reservation.tokens).toBeGreaterThan(
      IMAGE_TOKEN_BOUND + settings.maxAnswerTokens,
    )
  })
})
