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
  /** Makes the account with this email an operator; `already` when it was one. */
  grant(
    email: string,
    by: OperatorActor,
  ): Promise<{ outcome: 'granted' | 'already'; userId: string }>
  /** Takes the role away; `not_operator` when the account did not hold it. */
  revoke(email: string, by: OperatorActor): Promise<{ outcome: 'revoked' | 'not_operator' }>
  /** Every operator, oldest grant first, read with the BFF's own connection (the CLI). */
  list(): Promise<Operator[]>
  /** The same list read as the user (RLS: only an operator sees any row). */
  listAs(claims: UserClaims): Promise<Operator[]>
  /** Forgets what this process kept of a user's role (on a `roles` invalidation). */
  forget(userId: string): void
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
            .returning('user_id'),
          tx,
        )
        if (rows.length === 0) return { outcome: 'already' as const, userId: user.id }
        await store.logEvent(tx, {
          remote: null,
          kind: 'operator_granted',
          version: null,
          by,
          details: { userId: user.id, email: user.email },
        })
        await changed(tx, user.id)
        return { outcome: 'granted' as const, userId: user.id }
      })
      cache.delete(result.userId)
      return result
    },
    async revoke(email, by) {
      const result = await sql.transaction(async (tx) => {
        const user = await userOf(tx, email)
        const { rowCount } = await execute(
          queries.deleteFrom('operators').where('user_id', '=', user.id),
          tx,
        )
        if (rowCount === 0) return { outcome: 'not_operator' as const, userId: user.id }
        await store.logEvent(tx, {
          remote: null,
          kind: 'operator_revoked',
          version: null,
          by,
          details: { userId: user.id, email: user.email },
        })
        await changed(tx, user.id)
        return { outcome: 'revoked' as const, userId: user.id }
      })
      cache.delete(result.userId)
      return { outcome: result.outcome }
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
