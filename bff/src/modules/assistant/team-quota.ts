/**
 * The shared token pool of a team workspace and each member's cap (docs/decisions/027): the same
 * hold, settle and sweep as the personal quota (decision 008/016), over two counters at once.
 * Each step is one call of a SQL function (20261126121000_assistant_workspaces.sql) that locks the
 * pool's row, then the member's, checks both limits and writes both or neither.
 */
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { UsagePeriod } from './period.ts'

/** A team's pool and one member's share of it this month, as stored. */
export interface TeamCounters {
  pool: { used: number; reserved: number; limit: number }
  member: { used: number; reserved: number; cap: number | null }
}

/** Why a team hold was refused: the pool is used up, the member's cap is, or they left. */
export type TeamRefusal = 'pool' | 'cap' | 'not_member'

export type TeamReservation =
  | { ok: true; id: string; tokens: number; counters: TeamCounters }
  | { ok: false; refusal: TeamRefusal; counters: TeamCounters }

export interface TeamQuota {
  /**
   * Holds `tokens` for one answer of `userId` in the workspace, within the pool (`limit`) and the
   * member's cap (read from workspace_members in the same statement), or refuses. Atomic: parallel
   * calls, from any member and any process, never hold past either limit.
   */
  reserve(input: {
    workspaceId: string
    userId: string
    period: UsagePeriod
    limit: number
    tokens: number
    model: string
  }): Promise<TeamReservation>
  /** Settles a team hold once (null when it was already settled, or is not a team hold). */
  settle(
    reservationId: string,
    tokens: number,
    tx?: SqlQueryable,
  ): Promise<(TeamCounters & { charged: number }) | null>
  /** The pool and the caller's share this month, read as the user (RLS). */
  read(
    claims: UserClaims,
    workspaceId: string,
    period: UsagePeriod,
    limit: number,
  ): Promise<TeamCounters>
  /** Releases, uncharged, team holds older than `olderThanMs`: one workspace's, or all (null). */
  releaseStale(workspaceId: string | null, olderThanMs: number): Promise<number>
}

interface CounterRow {
  pool_used: number
  pool_reserved: number
  member_used: number
  member_reserved: number
  member_cap: number | null
}

const countersOf = (row: CounterRow, limit: number): TeamCounters => ({
  pool: { used: row.pool_used, reserved: row.pool_reserved, limit },
  member: { used: row.member_used, reserved: row.member_reserved, cap: row.member_cap },
})

export function createTeamQuota(sql: Sql, options: { abandonedAfterMs: number }): TeamQuota {
  const releaseStale = async (workspaceId: string | null, olderThanMs: number) => {
    const { rows } = await sql.query<{ released: number }>(
      `select tessera_private.release_stale_workspace_holds($1::uuid, make_interval(secs => $2::float8)) as released`,
      [workspaceId, olderThanMs / 1000],
    )
    return Number(rows[0]?.released ?? 0)
  }

  const attempt = async (input: Parameters<TeamQuota['reserve']>[0], id: string) => {
    const { rows } = await sql.query<CounterRow & { outcome: 'held' | TeamRefusal }>(
      `select * from tessera_private.reserve_workspace_tokens($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        input.workspaceId,
        input.userId,
        input.period.start,
        input.limit,
        input.tokens,
        input.model,
      ],
    )
    const row = rows[0]
    if (row === undefined) throw new Error('the team hold returned no outcome')
    return row
  }

  return {
    async reserve(input) {
      const id = crypto.randomUUID()
      let row = await attempt(input, id)
      // A refusal may be the fault of a dead BFF's holds: give those back and try once more.
      if (
        (row.outcome === 'pool' || row.outcome === 'cap') &&
        (await releaseStale(input.workspaceId, options.abandonedAfterMs)) > 0
      )
        row = await attempt(input, id)
      const counters = countersOf(row, input.limit)
      if (row.outcome !== 'held') return { ok: false, refusal: row.outcome, counters }
      return { ok: true, id, tokens: input.tokens, counters }
    },

    async settle(reservationId, tokens, tx = sql) {
      const { rows } = await tx.query<CounterRow & { pool_limit: number; charged: number }>(
        'select * from tessera_private.settle_workspace_hold($1, $2)',
        [reservationId, Math.max(0, Math.round(tokens))],
      )
      const row = rows[0]
      return row === undefined ? null : { ...countersOf(row, row.pool_limit), charged: row.charged }
    },

    read: (claims, workspaceId, period, limit) =>
      withUser(
        sql,
        claims,
        async (tx) => {
          const { rows } = await tx.query<CounterRow>(
            `select coalesce(p.used_tokens, 0) as pool_used, coalesce(p.reserved_tokens, 0) as pool_reserved,
               coalesce(m.used_tokens, 0) as member_used, coalesce(m.reserved_tokens, 0) as member_reserved,
               (select monthly_token_cap from public.workspace_members
                 where workspace_id = $1 and user_id = $2) as member_cap
             from (select 1) one
             left join public.workspace_usage p on p.workspace_id = $1 and p.period_start = $3
             left join public.workspace_member_usage m
               on m.workspace_id = $1 and m.user_id = $2 and m.period_start = $3`,
            [workspaceId, claims.sub, period.start],
          )
          const row = rows[0]
          if (row === undefined) throw new Error('the team usage read returned no row')
          return countersOf(row, limit)
        },
        { readOnly: true },
      ),

    releaseStale,
  }
}
