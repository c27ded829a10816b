import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { usagePeriodOf } from './period.ts'
import { createTeamQuota } from './team-quota.ts'
import type { TeamQuota } from './team-quota.ts'

let sql: Sql
let quota: TeamQuota
const november = usagePeriodOf(Date.parse('2026-11-22T12:00:00Z'))
const abandonedAfterMs = 6 * 60 * 1000

/** A small seeded generator, so a failing run can be replayed from its seed. */
function generator(seed: number) {
  let state = seed >>> 0
  return (below: number) => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return (((t ^ (t >>> 14)) >>> 0) % below) as number
  }
}

async function newUser(): Promise<string> {
  const id = crypto.randomUUID()
  await sql.query(
    `insert into auth.users (id, aud, role, email, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
    [id, `${id}@example.test`],
  )
  return id
}

/** A team workspace with `caps.length` members (the first the owner), each with that cap. */
async function newTeam(caps: (number | null)[]): Promise<{ id: string; members: string[] }> {
  const members: string[] = []
  for (const _ of caps) members.push(await newUser())
  const { rows } = await sql.query<{ id: string }>(
    `insert into public.workspaces (name, kind, created_by) values ('Team', 'team', $1) returning id`,
    [members[0]!],
  )
  const id = rows[0]!.id
  for (const [index, userId] of members.entries()) {
    await sql.query(
      `insert into public.workspace_members (workspace_id, user_id, role, monthly_token_cap)
       values ($1, $2, $3, $4)`,
      [id, userId, index === 0 ? 'owner' : 'member', caps[index] ?? null],
    )
  }
  return { id, members }
}

async function stored(workspaceId: string) {
  const pool = await sql.query<{ used: number; reserved: number; limit: number }>(
    `select used_tokens as used, reserved_tokens as reserved, limit_tokens as limit
     from workspace_usage where workspace_id = $1 and period_start = $2`,
    [workspaceId, november.start],
  )
  const members = await sql.query<{ user_id: string; used: number; reserved: number }>(
    `select user_id, used_tokens as used, reserved_tokens as reserved from workspace_member_usage
     where workspace_id = $1 and period_start = $2`,
    [workspaceId, november.start],
  )
  const daily = await sql.query<{ user_id: string; tokens: number }>(
    `select user_id, sum(tokens)::int as tokens from workspace_usage_daily
     where workspace_id = $1 group by user_id`,
    [workspaceId],
  )
  const held = await sql.query<{ tokens: number }>(
    `select coalesce(sum(tokens), 0)::int as tokens from workspace_reservations where workspace_id = $1`,
    [workspaceId],
  )
  return {
    pool: pool.rows[0] ?? { used: 0, reserved: 0, limit: 0 },
    members: new Map(members.rows.map((row) => [row.user_id, row])),
    daily: new Map(daily.rows.map((row) => [row.user_id, Number(row.tokens)])),
    held: Number(held.rows[0]?.tokens ?? 0),
  }
}

beforeAll(async () => {
  sql = await createBffTestDatabase()
  quota = createTeamQuota(sql, { abandonedAfterMs })
}, databaseSetupTimeout)
afterAll(() => sql.close())

describe('the shared token pool of a team', () => {
  it('holds a send within the pool and the member’s cap, and settles it once', async () => {
    const team = await newTeam([null, 1000])
    const member = team.members[1]!
    const input = { workspaceId: team.id, userId: member, period: november, model: 'gpt-4.1-mini' }
    const held = await quota.reserve({ ...input, limit: 5000, tokens: 600 })
    expect(held).toMatchObject({
      ok: true,
      counters: { pool: { used: 0, reserved: 600 }, member: { reserved: 600, cap: 1000 } },
    })
    if (!held.ok) throw new Error('not held')
    expect(await quota.reserve({ ...input, limit: 5000, tokens: 500 })).toMatchObject({
      ok: false,
      refusal: 'cap',
    })
    expect(await quota.settle(held.id, 250)).toMatchObject({
      charged: 250,
      member: { used: 250, reserved: 0 },
    })
    expect(await quota.settle(held.id, 250)).toBeNull()
    const after = await stored(team.id)
    expect(after.pool).toMatchObject({ used: 250, reserved: 0 })
    expect(after.daily.get(member)).toBe(250)
  })

  it('refuses a send that does not fit the pool, whatever the member’s cap', async () => {
    const team = await newTeam([null, null])
    const base = { workspaceId: team.id, period: november, model: 'gpt-4.1-mini', limit: 1000 }
    expect(await quota.reserve({ ...base, userId: team.members[0]!, tokens: 800 })).toMatchObject({
      ok: true,
    })
    expect(await quota.reserve({ ...base, userId: team.members[1]!, tokens: 300 })).toMatchObject({
      ok: false,
      refusal: 'pool',
      counters: { pool: { used: 0, reserved: 800, limit: 1000 } },
    })
  })

  it('refuses someone who is not a member of the workspace, and holds nothing', async () => {
    const team = await newTeam([null])
    const outsider = await newUser()
    const result = await quota.reserve({
      workspaceId: team.id,
      userId: outsider,
      period: november,
      model: 'gpt-4.1-mini',
      limit: 1000,
      tokens: 10,
    })
    expect(result).toMatchObject({ ok: false, refusal: 'not_member' })
    expect((await stored(team.id)).held).toBe(0)
  })

  it('never counts more than the cap leaves, even when the model reports more than was held', async () => {
    const team = await newTeam([500])
    const owner = team.members[0]!
    const base = { workspaceId: team.id, userId: owner, period: november, model: 'gpt-4.1-mini' }
    const held = await quota.reserve({ ...base, limit: 10_000, tokens: 400 })
    if (!held.ok) throw new Error('not held')
    expect(await quota.settle(held.id, 5000)).toMatchObject({ charged: 500 })
    expect((await stored(team.id)).members.get(owner)).toMatchObject({ used: 500, reserved: 0 })
  })

  it('releases the team holds of a BFF that died mid-answer, uncharged, in the sweep', async () => {
    const team = await newTeam([null, null])
    const base = { workspaceId: team.id, period: november, model: 'gpt-4.1-mini', limit: 9000 }
    const first = await quota.reserve({ ...base, userId: team.members[0]!, tokens: 700 })
    await quota.reserve({ ...base, userId: team.members[1]!, tokens: 300 })
    if (!first.ok) throw new Error('not held')
    await sql.query(
      `update workspace_reservations set created_at = now() - interval '1 hour' where id = $1`,
      [first.id],
    )
    expect(await quota.releaseStale(null, abandonedAfterMs)).toBe(700)
    const after = await stored(team.id)
    expect(after.pool).toMatchObject({ used: 0, reserved: 300 })
    expect(after.members.get(team.members[0]!)).toMatchObject({ used: 0, reserved: 0 })
    expect(await quota.settle(first.id, 700)).toBeNull()
  })

  // The property of issue 19: many members sending at once, with random sizes, caps and
  // outcomes, never pass the pool or a cap, and what is counted is what the settlements charged.
  for (const seed of [1, 7, 42, 2026]) {
    it(`keeps the pool and every cap when 5 members send 20 answers each at once (seed ${seed})`, async () => {
      const random = generator(seed)
      const caps = Array.from({ length: 5 }, () => (random(3) === 0 ? null : 2000 + random(6000)))
      const team = await newTeam(caps)
      const limit = 10_000 + random(15_000)
      const charged = new Map<string, number>()
      let refusals = 0
      let worst = 0
      const send = async (userId: string) => {
        const tokens = 100 + random(1500)
        const result = await quota.reserve({
          workspaceId: team.id,
          userId,
          period: november,
          limit,
          tokens,
          model: random(2) === 0 ? 'gpt-4.1-mini' : 'gpt-4.1',
        })
        if (!result.ok) {
          refusals += 1
          return
        }
        await new Promise((resolve) => setTimeout(resolve, random(5)))
        // Nothing (a refusal upstream), less than held, or more than held (a server's bad count).
        const outcome = random(4)
        const charge = outcome === 0 ? 0 : outcome === 3 ? tokens * 2 : random(tokens + 1)
        const settled = await quota.settle(result.id, charge)
        if (settled === null) throw new Error('a hold was settled twice')
        charged.set(userId, (charged.get(userId) ?? 0) + settled.charged)
        const now = await stored(team.id)
        worst = Math.max(worst, now.pool.used + now.pool.reserved - limit)
      }
      await Promise.all(
        team.members.flatMap((userId) => Array.from({ length: 20 }, () => send(userId))),
      )
      const after = await stored(team.id)
      expect(worst).toBeLessThanOrEqual(0)
      expect(after.pool.reserved).toBe(0)
      expect(after.held).toBe(0)
      expect(after.pool.used).toBeLessThanOrEqual(limit)
      let sum = 0
      for (const [index, userId] of team.members.entries()) {
        const member = after.members.get(userId) ?? { used: 0, reserved: 0 }
        const cap = caps[index]
        if (cap !== null && cap !== undefined) expect(member.used).toBeLessThanOrEqual(cap)
        expect(member.reserved).toBe(0)
        expect(member.used).toBe(charged.get(userId) ?? 0)
        expect(after.daily.get(userId) ?? 0).toBe(member.used)
        sum += member.used
      }
      expect(after.pool.used).toBe(sum)
      // The run must have pushed against the limits, or it proved nothing.
      expect(refusals).toBeGreaterThan(0)
    })
  }
})
