import type { Context, MiddlewareHandler } from 'hono'

export type ApiKeyRole = 'anon' | 'service_role'

export interface ApiKeys {
  anon: string
  serviceRole: string
}

/** The role of the request's API key (`apikey` header or query parameter, as Supabase's gateway). */
export function apiKeyRole(c: Context, keys: ApiKeys): ApiKeyRole | null | undefined {
  const key = c.req.header('apikey') ?? c.req.query('apikey')
  if (key === undefined || key === '') return undefined
  if (key === keys.serviceRole) return 'service_role'
  if (key === keys.anon) return 'anon'
  return null
}

/** The bearer token of the request, if any. */
export function bearerToken(c: Context): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')
  return match?.[1]
}

/**
 * Supabase's API gateway refuses requests without a known API key before they reach GoTrue or
 * Storage, with its own body shape (`message`, `hint`). Storage will reuse this.
 */
export function requireApiKey(
  keys: ApiKeys,
  options: { open?: (c: Context) => boolean } = {},
): MiddlewareHandler {
  return async function apiKeyGate(c, next) {
    if (options.open?.(c) === true) return next()
    const role = apiKeyRole(c, keys)
    if (role === undefined) {
      return c.json(
        {
          message: 'No API key found in request',
          hint: 'No `apikey` request header or url param was found.',
        },
        401,
      )
    }
    if (role === null) {
      return c.json(
        {
          message: 'Invalid API key',
          hint: 'Double check your Supabase `anon` or `service_role` API key.',
        },
        401,
      )
    }
    return next()
  }
}

/** True when the request acts with the service role key (admin endpoints). */
export function isServiceRequest(c: Context, keys: ApiKeys): boolean {
  const bearer = bearerToken(c)
  return bearer === undefined ? apiKeyRole(c, keys) === 'service_role' : bearer === keys.serviceRole
}
