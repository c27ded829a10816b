import { hc } from 'hono/client'
import type { AppType } from '@tessera/bff'
import type { PlatformApi } from '@tessera/contracts'

/**
 * The host's typed BFF client. It sends every request through the platform's `api.fetch`, so it
 * gets the same credentials, CSRF header and catalogue errors as the plugins do.
 */
export function createBffClient(api: PlatformApi) {
  return hc<AppType>(api.baseUrl, {
    fetch: (input: RequestInfo | URL, init?: RequestInit) =>
      api.fetch(input instanceof Request ? input.url : input.toString(), init),
  })
}

export type BffClient = ReturnType<typeof createBffClient>
