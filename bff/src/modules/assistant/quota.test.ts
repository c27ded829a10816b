import type { Sql } from '@tessera/db/sql'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { usagePeriodOf } from './period.ts'
import { abandonedAfterMs, createQuota } from './quota.ts'
import type { Quota } from './quota.ts'

let sql: Sql
let quota: Quota
const november = usagePeriodOf(Date.parse('2026-11-22T12:00:00Z'))
const december = usagePeriodOf(Date.parse('2026-12-02T12:00:00Z'))
const claimsOf = (sub: string): UserClaims => ({ sub, role: 'authenticated', aud: 'authenticated' })

async function newUser(): Promise<string> {
  const id = crypto.randomUUID()
  await sql.query(
    `insert into auth.users (id, aud, role, email, created_at, updated_at)
     values ($1, 'authenticated', 'authenticated', $2, now(), now())`,
    [id, `${id}@example.test`],
  )
  return id
}

/** The stored counters, read with the BFF's own connection. */
async function countersOf(userId: string, period = november) {
  const { rows } = await sql.query<{ used: number; reserved: number; held: number }>(
    `select used_tokens as used, reserved_tokens as reserved,
       (select coalesce(sum(tokens), 0)::int from assistant_reservations r
         where r.user_id = u.user_id and r.period_start = u.period_start) as held
     from assistant_usage u where user_id = $1 and period_start = $2`,
    [userId, period.start],
  )
  return rows[0] ?? { used: 0, reserved: 0, held: 0 }
}

async function setUsed(userId: string, used: number, limit: number): Promise<void> {
  await sql.query(
    `insert into assistant_usage (user_id, period_start, used_tokens, limit_tokens) values ($1, $2, $3, $4)
     on conflict (user_id, period_start) do update set used_tokens = excluded.used_tokens`,
    [userId, november.start, used, limit],
  )
}

beforeAll(async () => {
  sql = await createBffTestDatabase()
  quota = createQuota(sql)
}, databaseSetupTimeout)
afterAll(() => sql.close())

describe('the monthly token quota', () => {
  it('reserves the first answer of a month, creating the month’s counters', async () => {
    const user = await newUser()
    const reservation = await quota.reserve({
      userId: user,
      period: november,
      limit: 1000,
      tokens: 300,
    })
    expect(reservation).toMatchObject({
      ok: true,
      tokens: 300,
      counters: { used: 0, reserved: 300 },
    })
    expect(await countersOf(user)).toEqual({ used: 0, reserved: 300, held: 300 })
  })

  it('reserves every answer that fits when a month’s first answers arrive at once', async () => {
    const user = await newUser()
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        quota.reserve({ userId: user, period: november, limit: 10_000, tokens: 500 }),
      ),
    )
    expect(results.every((result) => result.ok)).toBe(true)
    expect(await countersOf(user)).toEqual({ used: 0, reserved: 5000, held: 5000 })
  })

  it('refuses an answer that does not fit beside what is used and held, and holds nothing', async () => {
    const user = await newUser()
    await setUsed(user, 600, 1000)
    const first = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 300 })
    expect(first.ok).toBe(true)
    const second = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 101 })
    expect(second).toEqual({ ok: false, counters: { used: 600, reserved: 300 } })
    const exact = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 100 })
    expect(exact.ok).toBe(true)
    expect(await countersOf(user)).toEqual({ used: 600, reserved: 400, held: 400 })
  })

  it('refuses an answer larger than the whole limit on a fresh month', async () => {
    const user = await newUser()
    const reservation = await quota.reserve({
      userId: user,
      period: november,
      limit: 100,
      tokens: 101,
    })
    expect(reservation).toEqual({ ok: false, counters: { used: 0, reserved: 0 } })
  })

  it('settles with the real usage, releases the hold, and counts a settlement only once', async () => {
    const user = await newUser()
    const reservation = await quota.reserve({
      userId: user,
      period: november,
      limit: 1000,
      tokens: 300,
    })
    if (!reservation.ok) throw new Error('expected a reservation')
    expect(await quota.settle(reservation.id, 120)).toEqual({ used: 120, reserved: 0 })
    expect(await quota.settle(reservation.id, 120)).toBeNull()
    expect(await countersOf(user)).toEqual({ used: 120, reserved: 0, held: 0 })
  })

  it('counts more than was held only as far as the limit allows', async () => {
    const user = await newUser()
    await setUsed(user, 500, 1000)
    const a = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 200 })
    const b = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 200 })
    if (!a.ok || !b.ok) throw new Error('expected two reservations')
    // 100 tokens are free beside the two holds: a can count its 200 and 100 more, not 900.
    expect(await quota.settle(a.id, 900)).toEqual({ used: 800, reserved: 200 })
    // Nothing is left beyond b's own hold.
    expect(await quota.settle(b.id, 5000)).toEqual({ used: 1000, reserved: 0 })
  })

  it('lets exactly the answers that fit through when 50 reserve at once, one message short of the limit', async () => {
    const user = await newUser()
    const tokens = 1100
    await setUsed(user, 50_000 - tokens, 50_000)
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        quota.reserve({ userId: user, period: november, limit: 50_000, tokens }),
      ),
    )
    expect(results.filter((result) => result.ok)).toHaveLength(1)
    expect(await countersOf(user)).toEqual({
      used: 50_000 - tokens,
      reserved: tokens,
      held: tokens,
    })
  })

  it('never holds and counts more than the limit, whatever the sizes and the interleaving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 100, max: 5000 }),
        fc.array(
          fc.record({
            tokens: fc.integer({ min: 1, max: 2000 }),
            // What the model reports, as a share of the hold (above 1: a server beyond the bound).
            usage: fc.double({ min: 0, max: 1.5, noNaN: true }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (s, limit, startUsed, sends) => {
          const user = await newUser()
          const used0 = Math.min(startUsed, limit)
          await setUsed(user, used0, limit)
          const violations: string[] = []
          const check = async (when: string) => {
            const counters = await countersOf(user)
            if (counters.used + counters.reserved > limit)
              violations.push(`${when}: ${JSON.stringify(counters)} over ${limit}`)
            if (counters.reserved !== counters.held)
              violations.push(`${when}: reserved ${counters.reserved} but ${counters.held} held`)
          }
          const reserve = s.scheduleFunction((tokens: number) =>
            quota.reserve({ userId: user, period: november, limit, tokens }),
          )
          const settle = s.scheduleFunction((id: string, tokens: number) =>
            quota.settle(id, tokens),
          )
          let granted = 0
          const runs = sends.map(async (send, index) => {
            const reservation = await reserve(send.tokens)
            await check(`after reservation ${index}`)
            if (!reservation.ok) return
            granted += 1
            await settle(reservation.id, Math.round(send.tokens * send.usage))
            await check(`after settlement ${index}`)
          })
          await s.waitFor(Promise.all(runs))
          const end = await countersOf(user)
          expect(violations).toEqual([])
          expect(end.reserved).toBe(0)
          expect(end.used).toBeLessThanOrEqual(limit)
          expect(end.used).toBeGreaterThanOrEqual(used0)
          if (sends.every((send) => used0 + send.tokens > limit)) expect(granted).toBe(0)
        },
      ),
      { numRuns: 40 },
    )
  }, 60_000)

  it('releases the holds of a BFF that died mid-answer once they are stale, so they stop blocking', async () => {
    const user = await newUser()
    const held = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 900 })
    if (!held.ok) throw new Error('expected a reservation')
    expect(
      (await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 200 })).ok,
    ).toBe(false)
    await sql.query(
      `update assistant_reservations set created_at = now() - make_interval(secs => $2::float8) where id = $1`,
      [held.id, abandonedAfterMs / 1000 + 1],
    )
    const next = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 200 })
    expect(next).toMatchObject({ ok: true, counters: { used: 0, reserved: 200 } })
    // The dead answer's late settlement changes nothing.
    expect(await quota.settle(held.id, 900)).toBeNull()
  })

  it('counts a hold as abandoned after the configured time, not the default', async () => {
    // A deployment whose answers last at most a few seconds (ASSISTANT_ABANDONED_HOLD_SECONDS).
    const quick = createQuota(sql, { abandonedAfterMs: 10_000 })
    const user = await newUser()
    const held = await quick.reserve({ userId: user, period: november, limit: 1000, tokens: 900 })
    if (!held.ok) throw new Error('expected a reservation')
    await sql.query(
      `update assistant_reservations set created_at = now() - interval '11 seconds' where id = $1`,
      [held.id],
    )
    // The default would still wait for the dead answer; the configured time frees it.
    expect(
      (await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 200 })).ok,
    ).toBe(false)
    const next = await quick.reserve({ userId: user, period: november, limit: 1000, tokens: 200 })
    expect(next).toMatchObject({ ok: true, counters: { used: 0, reserved: 200 } })
    expect(await quick.settle(held.id, 900)).toBeNull()
  })

  it('releases, uncharged, every user’s holds older than any answer can stream, and no newer one', async () => {
    const ada = await newUser()
    const bob = await newUser()
    const dead = await quota.reserve({ userId: ada, period: november, limit: 1000, tokens: 300 })
    const alsoDead = await quota.reserve({
      userId: bob,
      period: november,
      limit: 1000,
      tokens: 200,
    })
    const live = await quota.reserve({ userId: bob, period: november, limit: 1000, tokens: 100 })
    if (!dead.ok || !alsoDead.ok || !live.ok) throw new Error('expected reservations')
    await sql.query(
      `update assistant_reservations set created_at = now() - make_interval(secs => $3::float8) where id in ($1, $2)`,
      [dead.id, alsoDead.id, abandonedAfterMs / 1000 + 1],
    )
    expect(await quota.releaseStale(null, abandonedAfterMs)).toBeGreaterThanOrEqual(500)
    expect(await countersOf(ada, november)).toEqual({ used: 0, reserved: 0, held: 0 })
    expect(await countersOf(bob, november)).toEqual({ used: 0, reserved: 100, held: 100 })
    expect(await quota.settle(live.id, 40)).toEqual({ used: 40, reserved: 0 })
  })

  it('starts each month from zero and settles a reservation against the month it was taken in', async () => {
    const user = await newUser()
    await setUsed(user, 900, 1000)
    const late = await quota.reserve({ userId: user, period: november, limit: 1000, tokens: 100 })
    if (!late.ok) throw new Error('expected a reservation')
    const fresh = await quota.reserve({ userId: user, period: december, limit: 1000, tokens: 700 })
    expect(fresh).toMatchObject({ ok: true, counters: { used: 0, reserved: 700 } })
    await quota.settle(late.id, 50)
    expect(await countersOf(user, november)).toEqual({ used: 950, reserved: 0, held: 0 })
    expect(await countersOf(user, december)).toEqual({ used: 0, reserved: 700, held: 700 })
  })

  it('shows users their own counters only, and lets no user change them', async () => {
    const ada = await newUser()
    const bob = await newUser()
    await setUsed(ada, 42, 1000)
    await setUsed(bob, 7, 1000)
    expect(await quota.read(claimsOf(ada), november)).toEqual({ used: 42, reserved: 0 })
    expect(await quota.read(claimsOf(bob), november)).toEqual({ used: 7, reserved: 0 })
    const attempt = sql.transaction(async (tx) => {
      await tx.query(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`,
        [JSON.stringify(claimsOf(ada))],
      )
      await tx.query('update assistant_usage set used_tokens = 0 where user_id = $1', [ada])
    })
    await expect(attempt).rejects.toThrow(/permission denied/)
    const readOther = await sql.transaction(async (tx) => {
      await tx.query(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`,
        [JSON.stringify(claimsOf(ada))],
      )
      return (await tx.query('select * from assistant_usage where user_id = $1', [bob])).rows
    })
    expect(readOther).toEqual([])
  })

  it('refuses, in the database itself, counters beyond the limit', async () => {
    const user = await newUser()
    await setUsed(user, 10, 100)
    await expect(
      sql.query('update assistant_usage set reserved_tokens = 91 where user_id = $1', [user]),
    ).rejects.toThrow(/assistant_usage_within_limit/)
  })
})
