import type {
  AuditQuery,
  AuditResponse,
  ConsoleHealth,
  ConsoleRemoteDetail,
  ConsoleRemotesResponse,
  ConsoleToken,
  GrantedOperator,
  GrantOperatorBody,
  IssuedToken,
  IssueTokenBody,
  OperatorsResponse,
  RevokedOperator,
} from '@tessera/contracts/console'
import type { ChannelChange } from '@tessera/contracts/deploy'
import type { Platform } from '@tessera/contracts/platform'

/** The console's API, under the BFF's `/api/console`. */
export const CONSOLE_API = '/api/console'

/** The audit filters a page sends (every one optional), without paging and format. */
export type AuditFilters = Pick<AuditQuery, 'remote' | 'kind' | 'source' | 'actor'>

/** `?remote=…&kind=…` for the audit log: only the filters that are set, in a stable order. */
export function auditSearch(
  filters: AuditFilters,
  extra: { before?: number; format?: 'csv' } = {},
): string {
  const params = new URLSearchParams()
  for (const key of ['remote', 'kind', 'source', 'actor'] as const) {
    const value = filters[key]?.trim()
    if (value) params.set(key, value)
  }
  if (extra.before !== undefined) params.set('before', String(extra.before))
  if (extra.format) params.set('format', extra.format)
  const text = params.toString()
  return text ? `?${text}` : ''
}

/** The CSV export's address: the same filters, every page (a plain link; the browser downloads). */
export function auditCsvHref(filters: AuditFilters): string {
  return `${CONSOLE_API}/audit${auditSearch(filters, { format: 'csv' })}`
}

const remotePath = (name: string) => `${CONSOLE_API}/remotes/${encodeURIComponent(name)}`

/**
 * The console routes of the BFF, typed by the contracts' shapes (contracts/src/console.ts). Every
 * call goes through the platform's `api.fetch` (cookie, CSRF header, catalogue errors thrown as
 * `ApiError`), so a body read here is always the success shape; parsing it again here would
 * bring zod into the bundle. The actions send the channel's revision the page showed: if someone
 * moved it since, the BFF answers 409 `conflict` and changes nothing.
 */
export function createConsoleApi(platform: Platform) {
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await platform.api.fetch(path, init)
    return (await response.json()) as T
  }
  const post = <T>(path: string, body: unknown) =>
    json<T>(path, { method: 'POST', body: JSON.stringify(body) })
  return {
    remotes: () => json<ConsoleRemotesResponse>(`${CONSOLE_API}/remotes`),
    remote: (name: string) => json<ConsoleRemoteDetail>(remotePath(name)),
    promote: (name: string, body: { version: string; expectedRevision: number }) =>
      post<ChannelChange>(`${remotePath(name)}/promote`, body),
    startCanary: (
      name: string,
      body: { version: string; percentage: number; expectedRevision: number },
    ) => post<ChannelChange>(`${remotePath(name)}/canary`, body),
    stopCanary: (name: string, body: { expectedRevision: number }) =>
      post<ChannelChange>(`${remotePath(name)}/canary/stop`, body),
    rollback: (name: string, body: { expectedRevision: number }) =>
      post<ChannelChange>(`${remotePath(name)}/rollback`, body),
    audit: (filters: AuditFilters, before?: number) =>
      json<AuditResponse>(
        `${CONSOLE_API}/audit${auditSearch(filters, before === undefined ? {} : { before })}`,
      ),
    tokens: () => json<{ tokens: ConsoleToken[] }>(`${CONSOLE_API}/tokens`),
    issueToken: (body: IssueTokenBody) => post<IssuedToken>(`${CONSOLE_API}/tokens`, body),
    revokeToken: (id: string) =>
      json<{ token: ConsoleToken | null }>(
        `${CONSOLE_API}/tokens/${encodeURIComponent(id)}/revoke`,
        { method: 'POST' },
      ),
    health: () => json<ConsoleHealth>(`${CONSOLE_API}/health`),
    operators: () => json<OperatorsResponse>(`${CONSOLE_API}/operators`),
    /** Grants the role (201 `granted`; 200 `already` when they held it: nothing changed). */
    grantOperator: (body: GrantOperatorBody) =>
      post<GrantedOperator>(`${CONSOLE_API}/operators`, body),
    revokeOperator: (userId: string) =>
      json<RevokedOperator>(`${CONSOLE_API}/operators/${encodeURIComponent(userId)}/revoke`, {
        method: 'POST',
      }),
  }
}

export type ConsoleApi = ReturnType<typeof createConsoleApi>
