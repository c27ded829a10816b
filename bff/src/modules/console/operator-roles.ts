/**
 * The operator role (docs/decisions/023): held in `public.operators`, which only the BFF's own
 * connection writes (the console, `npm run operators`, `npm start`). Every check reads the
 * database, kept per process for a few seconds; a grant or revoke publishes a `roles`
 * invalidation in its transaction, so every replica drops what it kept at once.
 */
import { ApiError, type Operator, type UserRole } from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import { createChannelStore } from '../deploy/channel-store.ts'
import type { OperatorActor } from '../deploy/actor.ts'
import type { Invalidation } from '../events/cache-invalidation.ts'

export interface OperatorRoles {
  /** Whether the user holds the operator role (cached briefly; dropped on any replica's change). */
  isOperator(userId: string): Promise<boolean>
  /** The roles a user holds, for `GET /api/me`. */
  rolesOf(userId: string): Promise<UserRole[]>
  /**
   * Makes the account with this email an operator; `already` when it was one (nothing changes).
   * The one way in for the CLI, the console and `npm start`: audited as `by`, and a `roles`
   * invalidation published in the same transaction.
   */
  grant(email: string, by: OperatorActor): Promise<GrantOutcome>
  /**
   * Takes the role away from the account (by email, the CLI; or by user id, the console);
   * `not_operator` when it did not hold it. An operator cannot take it from themselves while they
   * are the only one (409 `conflict`, `last_operator`): nobody could sign in to the console.
   */
  revoke(account: string | { userId: string }, by: OperatorActor): Promise<RevokeOutcome>
  /** Every operator, oldest grant first, read with the BFF's own connection (the CLI). */
  list(): Promise<Operator[]>
  /** The same list read as the user (RLS: only an operator sees any row). */
  listAs(claims: UserClaims): Promise<Operator[]>
  /** Forgets what this process kept of a user's role (on a `roles` invalidation). */
  forget(userId: string): void
}

export interface GrantOutcome {
  outcome: 'granted' | 'already'
  userId: string
  /** The operator as they are now (when and by whom the role was granted, this time or before). */
  operator: Operator
}

export interface RevokeOutcome {
  outcome: 'revoked' | 'not_operator'
  /** The account's user id; null when no account has that email or id. */
  userId: string | null
  /** The operator as they were before the revoke; null when they were none. */
  operator: Operator | null
}

export interface OperatorRolesDeps {
  sql: Sql
  clock: Clock
  /** Tells every replica a user's role changed, in the transaction that changed it. */
  publish?: (invalidation: Invalidation, tx: SqlQueryable) => Promise<void>
  /** How long this process keeps a user's role (ms). */
  cacheMs?: number
}

type OperatorRow = { user_id: string; email: string | null; granted_at: Date; granted_by: string }

const listText = `select o.user_id, u.email, o.granted_at, o.granted_by
  from public.operators o left join auth.users u on u.id = o.user_id
  order by o.granted_at, o.user_id`

const toOperator = (row: OperatorRow): Operator => ({
  userId: row.user_id,
  email: row.email ?? '(deleted account)',
  grantedAt: new Date(row.granted_at).toISOString(),
  grantedBy: row.granted_by,
})

/** The sentence for an operator who would take the role from themselves as the only one. */
export const LAST_OPERATOR =
  'You are the only operator: revoking your own role would leave nobody who can open the console. Grant the role to someone else first, then revoke yours.'

/** The refusal of that revoke: nothing changed. */
export function lastOperator(): ApiError {
  return new ApiError('conflict', {
    message: LAST_OPERATOR,
    details: { reason: 'last_operator' },
  })
}

/** An operator whose own role went while they acted (another operator revoked it first). */
function revokedMeanwhile(): ApiError {
  return new ApiError('forbidden', {
    message:
      'Your operator role was revoked a moment ago, so nothing changed. Ask an operator to grant it again.',
    details: { reason: 'not_operator' },
  })
}

/** The sentence for an email no account has. */
export function unknownAccount(email: string): ApiError {
  return new ApiError('not_found', {
    message: `No account has the email ${email}. The person must sign up first; then grant the role again.`,
  })
}

export function createOperatorRoles(deps: OperatorRolesDeps): OperatorRoles {
  const { sql, clock } = deps
  const cache = createRecentCache<{ operator: boolean }>({
    max: 10_000,
    ttlMs: deps.cacheMs ?? 5_000,
    clock,
  })
  // Only its event log is used: role changes are audited beside the registry's events.
  const store = createChannelStore({ clock, host: { contract: 0, shared: {} } })

  const isOperator = async (userId: string): Promise<boolean> => {
    const found = await cache.getOrLoad(userId, async () => {
      const { rows } = await execute(
        queries.selectFrom('operators').select('user_id').where('user_id', '=', userId),
        sql,
      )
      return { operator: rows.length > 0 }
    })
    return found?.operator ?? false
  }

  const userOf = async (tx: SqlQueryable, email: string) => {
    const { rows } = await tx.query<{ id: string; email: string }>(
      'select id, email from auth.users where lower(email) = lower($1) order by created_at limit 1',
      [email],
    )
    const user = rows[0]
    if (user === undefined) throw unknownAccount(email)
    return user
  }

  const userById = async (tx: SqlQueryable, id: string) => {
    const { rows } = await tx.query<{ id: string; email: string | null }>(
      'select id, email from auth.users where id = $1',
      [id],
    )
    return rows[0] ?? null
  }

  const changed = async (tx: SqlQueryable, userId: string) => {
    cache.delete(userId)
    await deps.publish?.({ cache: 'roles', userId }, tx)
  }

  return {
    isOperator,
    async rolesOf(userId) {
      return (await isOperator(userId)) ? ['operator'] : []
    },
    async grant(email, by) {
      const result = await sql.transaction(async (tx) => {
        const user = await userOf(tx, email)
        const { rows } = await execute(
          queries
            .insertInto('operators')
            .values({ user_id: user.id, granted_at: new Date(clock.now()), granted_by: by.label })
            .onConflict((oc) => oc.column('user_id').doNothing())
            .returning(['granted_at', 'granted_by']),
          tx,
        )
        const inserted = rows[0]
        if (inserted === undefined) {
          const { rows: held } = await execute(
            queries
              .selectFrom('operators')
              .select(['granted_at', 'granted_by'])
              .where('user_id', '=', user.id),
            tx,
          )
          const row = held[0]
          if (row === undefined) throw new Error('the operator row conflicted but is not there')
          const operator = toOperator({ user_id: user.id, email: user.email, ...row })
          return { outcome: 'already' as const, userId: user.id, operator }
        }
        await store.logEvent(tx, {
          remote: null,
          kind: 'operator_granted',
          version: null,
          by,
          details: { userId: user.id, email: user.email },
        })
        await changed(tx, user.id)
        const operator = toOperator({ user_id: user.id, email: user.email, ...inserted })
        return { outcome: 'granted' as const, userId: user.id, operator }
      })
      cache.delete(result.userId)
      return result
    },
    async revoke(account, by) {
      const result = await sql.transaction(async (tx): Promise<RevokeOutcome> => {
        const user =
          typeof account === 'string'
            ? await userOf(tx, account)
            : await userById(tx, account.userId)
        if (user === null) return { outcome: 'not_operator', userId: null, operator: null }
        if (by.userId !== null) {
          // An operator revokes (the console): every operator row locked, so two operators
          // revoking themselves or each other at once cannot leave nobody (the second reads the
          // rows the first left, once it commits).
          const { rows } = await tx.query<{ user_id: string }>(
            'select user_id from public.operators for update',
          )
          const held = new Set(rows.map((row) => row.user_id))
          if (!held.has(by.userId)) throw revokedMeanwhile()
          if (by.userId === user.id && held.size === 1) throw lastOperator()
        }
        const { rows } = await execute(
          queries
            .deleteFrom('operators')
            .where('user_id', '=', user.id)
            .returning(['granted_at', 'granted_by']),
          tx,
        )
        const removed = rows[0]
        if (removed === undefined)
          return { outcome: 'not_operator', userId: user.id, operator: null }
        await store.logEvent(tx, {
          remote: null,
          kind: 'operator_revoked',
          version: null,
          by,
          details: { userId: user.id, email: user.email },
        })
        await changed(tx, user.id)
        const operator = toOperator({ user_id: user.id, email: user.email, ...removed })
        return { outcome: 'revoked', userId: user.id, operator }
      })
      if (result.userId !== null) cache.delete(result.userId)
      return result
    },
    async list() {
      const { rows } = await sql.query<OperatorRow>(listText)
      return rows.map(toOperator)
    },
    async listAs(claims) {
      // auth.users is not readable as `authenticated`: emails come from a second, service read
      // of exactly the ids RLS let through.
      const visible = await withUser(
        sql,
        claims,
        async (tx) =>
          (
            await execute(
              queries
                .selectFrom('operators')
                .select(['user_id', 'granted_at', 'granted_by'])
                .orderBy('granted_at')
                .orderBy('user_id'),
              tx,
            )
          ).rows,
        { readOnly: true },
      )
      if (visible.length === 0) return []
      const { rows } = await sql.query<{ id: string; email: string }>(
        'select id, email from auth.users where id in (select jsonb_array_elements_text($1::jsonb)::uuid)',
        [JSON.stringify(visible.map((row) => row.user_id))],
      )
      const emails = new Map(rows.map((row) => [row.id, row.email]))
      return visible.map((row) => toOperator({ ...row, email: emails.get(row.user_id) ?? null }))
    },
    forget(userId) {
      cache.delete(userId)
    },
  }
}
