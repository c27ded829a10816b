import type { Sql, SqlQueryable } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import { execute, queries } from '../../platform/db/query.ts'
import { reusableStatement } from '../../platform/db/reusable-statement.ts'
import type { AssistantUsageRow } from '../../platform/db/schema.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { MESSAGE_OVERHEAD_BOUND } from './estimate.ts'
import type { UsagePeriod } from './period.ts'
import { recentHistory } from './history.ts'
import { createTeamQuota } from './team-quota.ts'
import type { TeamCounters, TeamQuota } from './team-quota.ts'

/**
 * The longest an answer may stream: the BFF stops it there (upstream_timeout), so a hold older
 * than this (and a minute's margin) can only belong to a BFF that died mid-answer.
 */
export const MAX_ANSWER_MS = 5 * 60 * 1000

/**
 * After this long, an answer still `streaming` (and its hold) can only belong to a BFF that died
 * mid-answer. Every BFF's sweep (`releaseAbandonedHolds`) releases such holds uncharged, and the
 * answer reads as interrupted. The default; ASSISTANT_ABANDONED_HOLD_SECONDS sets it.
 */
export const abandonedAfterMs = MAX_ANSWER_MS + 60 * 1000

/** A user's counters for one month, as stored. */
export interface UsageCounters {
  used: number
  reserved: number
  /** For a team hold: the pool and the member's share (used and reserved above are the share). */
  team?: TeamCounters
}

export type Reservation =
  | { ok: true; id: string; tokens: number; counters: UsageCounters }
  | {
      ok: false
      counters: UsageCounters
      /** The conversation is in a workspace: its send holds from the team's pool instead. */
      inWorkspace?: true
    }

/** A conversation whose history a send holds tokens for, read as the store reads it. */
export interface HistoryHold {
  conversationId: string
  bounds: { messages: number; chars: number }
  /** An edit or a regenerate: the history is the path before this message (history.ts). */
  beforeId?: string | null
}

export interface Quota {
  /**
   * Holds `tokens` of the month's `limit` for one answer, or refuses when they do not fit beside
   * what is used and held already. Atomic: parallel calls can never hold more than the limit.
   * With `history`, the hold also covers the bound of that conversation's history (what
   * `promptTokenBound` counts for each message), read in the same statement: the send need not
   * wait for its history before holding. The reservation's `tokens` is the whole hold.
   */
  reserve(input: {
    userId: string
    period: UsagePeriod
    limit: number
    tokens: number
    history?: HistoryHold
  }): Promise<Reservation>
  /**
   * Releases a reservation and counts `tokens` (the answer's real or estimated usage), at most
   * what keeps the month within its limit. Settling twice counts once; null when already settled.
   * With `tx`, it runs there: in the transaction that stores the answer, so both or neither happen.
   */
  settle(reservationId: string, tokens: number, tx?: SqlQueryable): Promise<UsageCounters | null>
  /** The user's counters for the month, read as the user (RLS). */
  read(claims: UserClaims, period: UsagePeriod): Promise<UsageCounters>
  /**
   * Releases, uncharged, the reservations older than `olderThanMs` (a BFF that died mid-answer):
   * one user's, or everyone's with null. The tokens released.
   */
  releaseStale(userId: string | null, olderThanMs: number): Promise<number>
  /**
   * The holds of team workspaces (team-quota.ts). A team hold is settled by `settle` like any
   * other; the sweep (`releaseStale(null, …)`) releases team holds too.
   */
  team: TeamQuota
}

const countersOf = (row: Pick<AssistantUsageRow, 'used_tokens' | 'reserved_tokens'>) => ({
  used: row.used_tokens,
  reserved: row.reserved_tokens,
})

const none: UsageCounters = { used: 0, reserved: 0 }

/** A hold without history reads the history of no conversation. */
const nowhere = '00000000-0000-0000-0000-000000000000'

/**
 * The hold of one answer, compiled once (it runs before every answer): `tokens` plus the bound of
 * the conversation's history, taken only where it fits the month's limit, and recorded as a
 * reservation in the same statement.
 */
const reserveStatement = reusableStatement(
  (values: {
    id: string
    userId: string
    periodStart: Date
    limit: number
    tokens: number
    conversationId: string
    messages: number
    chars: number
    beforeId: string | null
  }) =>
    queries
      .with('history', () =>
        recentHistory(values.conversationId, values.userId, values, values.beforeId),
      )
      .with('need', (db) =>
        db
          .selectFrom('history')
          .select(
            raw<number>`(${values.tokens}::int + coalesce(sum(${MESSAGE_OVERHEAD_BOUND}::int + octet_length(history.content)), 0))::int`.as(
              'tokens',
            ),
          )
          // A conversation in a workspace holds from its pool (team-quota.ts), never from here:
          // one primary-key lookup, so the personal send keeps its one statement.
          .select(
            raw<boolean>`exists (select 1 from public.assistant_conversations c where c.id = ${values.conversationId}::uuid and c.workspace_id is not null)`.as(
              'in_workspace',
            ),
          ),
      )
      .with('reserved', (db) =>
        db
          .updateTable('assistant_usage')
          .from('need')
          .set((eb) => ({
            reserved_tokens: eb('reserved_tokens', '+', eb.ref('need.tokens')),
            limit_tokens: values.limit,
            updated_at: raw<Date>`now()`,
          }))
          .where('user_id', '=', values.userId)
          .where('period_start', '=', values.periodStart)
          .where('need.in_workspace', '=', false)
          .where((eb) =>
            eb(
              eb(eb('used_tokens', '+', eb.ref('reserved_tokens')), '+', eb.ref('need.tokens')),
              '<=',
              values.limit,
            ),
          )
          .returning(['user_id', 'period_start', 'used_tokens', 'reserved_tokens', 'need.tokens']),
      )
      .with('held', (db) =>
        db
          .insertInto('assistant_reservations')
          .columns(['id', 'user_id', 'period_start', 'tokens'])
          .expression((eb) =>
            eb
              .selectFrom('reserved')
              .select([
                raw<string>`${values.id}::uuid`.as('id'),
                'reserved.user_id',
                'reserved.period_start',
                'reserved.tokens',
              ]),
          ),
      )
      .selectFrom('need')
      .leftJoin('reserved', (join) => join.onTrue())
      .select([
        'need.in_workspace',
        'reserved.used_tokens',
        'reserved.reserved_tokens',
        'reserved.tokens',
      ]),
)

/**
 * Monthly token accounting (docs/decisions/008). The counters are written only by the BFF's own
 * connection; users read them under RLS. The reservation is one conditional UPDATE … RETURNING
 * (which also records the reservation, in the same statement); Postgres's row lock makes parallel
 * reservations queue on the row and re-check the condition, so together they never pass the limit.
 */
export function createQuota(sql: Sql, options: { abandonedAfterMs?: number } = {}): Quota {
  const abandonedAfter = options.abandonedAfterMs ?? abandonedAfterMs
  const tryReserve = async (
    userId: string,
    period: UsagePeriod,
    limit: number,
    tokens: number,
    history: HistoryHold | undefined,
    id: string,
  ) => {
    const { rows } = await reserveStatement(sql, {
      id,
      userId,
      periodStart: period.start,
      limit,
      tokens,
      conversationId: history?.conversationId ?? nowhere,
      messages: history?.bounds.messages ?? 0,
      chars: history?.bounds.chars ?? 0,
      beforeId: history?.beforeId ?? null,
    })
    const row = rows[0]
    if (row === undefined) throw new Error('the hold statement returned no row')
    if (row.in_workspace) return 'in_workspace' as const
    const { used_tokens, reserved_tokens, tokens: held } = row
    return used_tokens === null || reserved_tokens === null || held === null
      ? undefined
      : { used_tokens, reserved_tokens, tokens: held }
  }

  const createRow = async (userId: string, period: UsagePeriod, limit: number) => {
    await execute(
      queries
        .insertInto('assistant_usage')
        .values({ user_id: userId, period_start: period.start, limit_tokens: limit })
        .onConflict((conflict) => conflict.columns(['user_id', 'period_start']).doNothing()),
      sql,
    )
  }

  const readAsOwner = async (userId: string, period: UsagePeriod) => {
    const { rows } = await execute(
      queries
        .selectFrom('assistant_usage')
        .select(['used_tokens', 'reserved_tokens'])
        .where('user_id', '=', userId)
        .where('period_start', '=', period.start),
      sql,
    )
    const row = rows[0]
    return row === undefined ? none : countersOf(row)
  }

  const team = createTeamQuota(sql, { abandonedAfterMs: abandonedAfter })
  // Team holds taken by this process: their settlement goes straight to the pool's function.
  // (One taken elsewhere is still found: a personal settle that finds nothing tries the pool's.)
  const teamHolds = new Set<string>()
  const settleTeam = async (reservationId: string, tokens: number, tx: SqlQueryable) => {
    const settled = await team.settle(reservationId, tokens, tx)
    teamHolds.delete(reservationId)
    if (settled === null) return null
    return { used: settled.member.used, reserved: settled.member.reserved, team: settled }
  }

  const quota: Quota = {
    team: {
      ...team,
      async reserve(input) {
        const reservation = await team.reserve(input)
        if (reservation.ok) teamHolds.add(reservation.id)
        return reservation
      },
    },

    async reserve({ userId, period, limit, tokens, history }) {
      const id = crypto.randomUUID()
      const attempt = () => tryReserve(userId, period, limit, tokens, history, id)
      // The hot path is the one statement; the rest runs only for a month's first answer, or
      // when the answer does not fit. The second try also covers a parallel request that
      // created the month's row first (our insert then did nothing).
      const first = await attempt()
      if (first === 'in_workspace') return { ok: false, counters: none, inWorkspace: true }
      // A conversation's workspace is set when it is created and never changes: a retry cannot
      // find it in one when the first try did not.
      const again = async () => {
        const row = await attempt()
        return row === 'in_workspace' ? undefined : row
      }
      let row = first
      if (row === undefined) {
        await createRow(userId, period, limit)
        row = await again()
      }
      if (row === undefined && (await quota.releaseStale(userId, abandonedAfter)) > 0)
        row = await again()
      if (row === undefined) return { ok: false, counters: await readAsOwner(userId, period) }
      return { ok: true, id, tokens: row.tokens, counters: countersOf(row) }
    },

    async settle(reservationId, tokens, tx = sql) {
      if (teamHolds.has(reservationId)) return settleTeam(reservationId, tokens, tx)
      const charge = Math.max(0, Math.round(tokens))
      const { rows } = await execute(
        queries
          .with('released', (db) =>
            db
              .deleteFrom('assistant_reservations')
              .where('id', '=', reservationId)
              .returning(['user_id', 'period_start', 'tokens']),
          )
          .updateTable('assistant_usage')
          .from('released')
          .set((eb) => ({
            reserved_tokens: eb('assistant_usage.reserved_tokens', '-', eb.ref('released.tokens')),
            // The held tokens can always be counted; beyond them, only what is left of the limit
            // (a server whose count broke the bound must not let the month pass its limit).
            used_tokens: raw<number>`assistant_usage.used_tokens + least(${charge}::int, greatest(released.tokens, assistant_usage.limit_tokens - assistant_usage.used_tokens - assistant_usage.reserved_tokens + released.tokens))`,
            updated_at: raw<Date>`now()`,
          }))
          .whereRef('assistant_usage.user_id', '=', 'released.user_id')
          .whereRef('assistant_usage.period_start', '=', 'released.period_start')
          .returning(['assistant_usage.used_tokens', 'assistant_usage.reserved_tokens']),
        tx,
      )
      const row = rows[0]
      if (row === undefined) return settleTeam(reservationId, tokens, tx)
      return countersOf(row)
    },

    read: (claims, period) =>
      withUser(
        sql,
        claims,
        async (tx) => {
          const { rows } = await execute(
            queries
              .selectFrom('assistant_usage')
              .select(['used_tokens', 'reserved_tokens'])
              .where('user_id', '=', claims.sub)
              .where('period_start', '=', period.start),
            tx,
          )
          const row = rows[0]
          return row === undefined ? none : countersOf(row)
        },
        { readOnly: true },
      ),

    async releaseStale(userId, olderThanMs) {
      const teams = userId === null ? await team.releaseStale(null, olderThanMs) : 0
      const { rows } = await execute(
        queries
          .with('stale', (db) =>
            db
              .deleteFrom('assistant_reservations')
              .$if(userId !== null, (query) => query.where('user_id', '=', userId as string))
              .where(
                'created_at',
                '<',
                raw<Date>`now() - make_interval(secs => ${olderThanMs / 1000}::float8)`,
              )
              .returning(['user_id', 'period_start', 'tokens']),
          )
          .with('totals', (db) =>
            db
              .selectFrom('stale')
              .select((eb) => [
                'stale.user_id',
                'stale.period_start',
                raw<number>`sum(${eb.ref('stale.tokens')})::int`.as('tokens'),
              ])
              .groupBy(['stale.user_id', 'stale.period_start']),
          )
          .updateTable('assistant_usage')
          .from('totals')
          .set((eb) => ({
            reserved_tokens: eb('assistant_usage.reserved_tokens', '-', eb.ref('totals.tokens')),
            updated_at: raw<Date>`now()`,
          }))
          .whereRef('assistant_usage.user_id', '=', 'totals.user_id')
          .whereRef('assistant_usage.period_start', '=', 'totals.period_start')
          .returning('totals.tokens'),
        sql,
      )
      return rows.reduce((sum, row) => sum + row.tokens, teams)
    },
  }
  return quota
}
