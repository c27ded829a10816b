import { hc } from 'hono/client'
import type { AppType } from '@tessera/bff/types'
import type { Platform } from '@tessera/contracts/platform'

/**
 * The typed BFF client. Every request goes through the platform's `api.fetch`, so it carries the
 * session cookie and the CSRF header, and a failure arrives as an `ApiError` with its catalogue
 * code (so `res.json()` is only ever the success body).
 */
export function createAuthClient(platform: Platform) {
  return hc<AppType>(platform.api.baseUrl, {
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      platform.api.fetch(input instanceof Request ? input.url : input.toString(), init),
  })
}

export type AuthClient = ReturnType<typeof createAuthClient>
