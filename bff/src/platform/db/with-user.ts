import type { Sql, SqlTransaction } from '@tessera/db/sql'

/** The JWT claims of the user a query runs for (the verified access token's payload). */
export type UserClaims = { sub: string; role: string } & Record<string, unknown>

/**
 * Runs `fn` in a transaction as the `authenticated` role with the user's claims, as Supabase's
 * API gateway does, so RLS policies (`auth.uid()`) apply to every statement `fn` runs on `tx`.
 * Both settings are transaction-local: they end with the transaction, even on a shared session.
 * `readOnly` for reads: Postgres refuses their writes, and they need not wait for `commit`.
 */
export function withUser<T>(
  sql: Sql,
  claims: UserClaims,
  fn: (tx: SqlTransaction) => Promise<T>,
  options: { readOnly?: boolean } = {},
): Promise<T> {
  return sql.transaction(fn, {
    ...options,
    // One statement, sent with `fn`'s first: set_config('role', …, true) is `set local role`.
    opening: {
      text: `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`,
      params: [JSON.stringify(claims)],
    },
  })
}
