import type { Sql, SqlQueryable, SqlStatement, SqlTransaction } from '@tessera/db/sql'

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
  return sql.transaction(fn, { ...options, opening: openingFor(claims) })
}

/**
 * Runs each statement as the user, as `withUser` does, in a transaction of its own: on a server
 * its `begin`, opening, statement and `commit` go out together, one round trip instead of two
 * (`Sql.transactionOf`). A statement is committed once it succeeded: a write whose result decides
 * whether it stands, or several that stand together, use `withUser`.
 */
export function asUser(
  sql: Sql,
  claims: UserClaims,
  options: { readOnly?: boolean } = {},
): SqlQueryable {
  const transaction = { ...options, opening: openingFor(claims) }
  return {
    query: (text, params = []) => sql.transactionOf({ text, params }, transaction),
    exec: (text) => sql.transaction((tx) => tx.exec(text), transaction),
  }
}

/** One statement, sent with the transaction's first: set_config('role', …, true) is `set local role`. */
function openingFor(claims: UserClaims): SqlStatement {
  return {
    text: `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`,
    params: [JSON.stringify(claims)],
  }
}
