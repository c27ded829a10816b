/**
 * Whether a database failure may pass if the same work is tried again: the connection, a
 * serialisation failure or deadlock, resources, a server shutting down. Stripe's webhook retry
 * is our "try again", so only these earn a non-2xx answer.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined
  if (code === undefined) return false
  // SQLSTATE classes: 08 connection, 40 transaction rollback (serialization, deadlock),
  // 53 insufficient resources, 57 operator intervention (shutdown, query cancelled);
  // 55P03 lock not available.
  if (/^(08|40|53|57)[0-9A-Z]{3}$/.test(code) || code === '55P03') return true
  // postgres.js and Node's own network errors.
  return [
    'CONNECTION_CLOSED',
    'CONNECTION_ENDED',
    'CONNECTION_DESTROYED',
    'CONNECT_TIMEOUT',
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
  ].includes(code)
}
