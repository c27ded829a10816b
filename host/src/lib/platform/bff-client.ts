import type { PlatformApi, RemoteErrorReport, RemoteLoadReport } from '@tessera/contracts'

/** Asks for one remote to load from another entry in this browser (a cookie the BFF sets). */
export interface OverrideStart {
  remote: string
  entryUrl: string
  label?: string | undefined
}

/**
 * The host's BFF routes, shaped by the contracts like every remote's API module. Every request
 * goes through the platform's `api.fetch`, so it gets the same credentials, CSRF header and
 * catalogue errors as the plugins do. Bodies are returned as read: the callers check what they
 * cannot trust (the registry snapshot is parsed against its schema at the edge).
 */
export function createBffClient(api: PlatformApi) {
  const send = (method: 'POST' | 'DELETE', path: string, body?: unknown, init?: RequestInit) =>
    api.fetch(path, {
      ...init,
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  return {
    /** `GET /api/remotes`: the registry snapshot for this viewer, unchecked. */
    async remotes(init?: RequestInit): Promise<unknown> {
      const response = await api.fetch('/api/remotes', init)
      return response.json()
    },
    async startOverride(request: OverrideStart): Promise<void> {
      await send('POST', '/api/remotes/overrides', request)
    },
    async stopOverride(remote: string): Promise<void> {
      await send('DELETE', `/api/remotes/overrides/${encodeURIComponent(remote)}`)
    },
    /** Kept alive so a report survives the page being left. */
    async reportRemoteError(report: RemoteErrorReport): Promise<void> {
      await send('POST', '/api/telemetry/remote-errors', report, { keepalive: true })
    },
    /** The remotes a page loaded and how long each took; kept alive like the error reports. */
    async reportRemoteLoads(report: RemoteLoadReport): Promise<void> {
      await send('POST', '/api/telemetry/remote-loads', report, { keepalive: true })
    },
  }
}

export type BffClient = ReturnType<typeof createBffClient>
