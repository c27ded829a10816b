import { useMemo } from 'react'
import type {
  AcceptedInvite,
  CreateInviteBody,
  InvitePreview,
  SentInvite,
  WorkspaceInvite,
  WorkspaceMember,
  WorkspaceMembersResponse,
  WorkspaceRole,
  WorkspacesResponse,
  WorkspaceSummary,
} from '@tessera/contracts/workspaces'
import type { Platform } from '@tessera/contracts/platform'
import { usePlatform } from '@tessera/plugin-react/platform'

/**
 * The live event that tells a user's tabs a workspace of theirs changed
 * (`WORKSPACE_EVENT_TYPE` of the contracts, spelled out here: importing the value would bring the
 * contracts' schemas, and zod with them, into the header's bundle).
 */
export const WORKSPACE_EVENT = 'workspace.changed'

/**
 * The workspaces and invites routes of the BFF (docs/decisions/024), typed by the contracts'
 * shapes, over the platform's `api.fetch` like `auth-api.ts`: a body read here is the success
 * shape, a refusal is thrown as an `ApiError` carrying the BFF's sentence.
 */
export function createWorkspacesApi(platform: Platform) {
  const json = async <T>(path: string, init?: RequestInit): Promise<T> => {
    const response = await platform.api.fetch(path, init)
    return (await response.json()) as T
  }
  const send = <T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) =>
    json<T>(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  /** For the routes that answer 204. */
  const act = async (method: 'POST' | 'DELETE', path: string): Promise<void> => {
    await platform.api.fetch(path, { method })
  }
  const workspace = (id: string) => `/api/workspaces/${encodeURIComponent(id)}`
  const invite = (token: string) => `/api/invites/${encodeURIComponent(token)}`
  type One = { workspace: WorkspaceSummary }

  return {
    list: () => json<WorkspacesResponse>('/api/workspaces'),
    create: (name: string) => send<One>('POST', '/api/workspaces', { name }),
    rename: (id: string, name: string) => send<One>('PATCH', workspace(id), { name }),
    switchTo: (workspaceId: string) =>
      send<One>('POST', '/api/workspaces/current', { workspaceId }),
    members: (id: string) => json<WorkspaceMembersResponse>(`${workspace(id)}/members`),
    changeRole: (id: string, userId: string, role: WorkspaceRole) =>
      send<{ member: WorkspaceMember }>(
        'PATCH',
        `${workspace(id)}/members/${encodeURIComponent(userId)}`,
        { role },
      ),
    removeMember: (id: string, userId: string) =>
      act('DELETE', `${workspace(id)}/members/${encodeURIComponent(userId)}`),
    leave: (id: string) => act('POST', `${workspace(id)}/leave`),
    invites: (id: string) => json<{ invites: WorkspaceInvite[] }>(`${workspace(id)}/invites`),
    invite: (id: string, body: CreateInviteBody) =>
      send<SentInvite>('POST', `${workspace(id)}/invites`, body),
    resendInvite: (id: string, inviteId: string) =>
      send<SentInvite>('POST', `${workspace(id)}/invites/${encodeURIComponent(inviteId)}/resend`),
    revokeInvite: (id: string, inviteId: string) =>
      send<{ invite: WorkspaceInvite }>(
        'DELETE',
        `${workspace(id)}/invites/${encodeURIComponent(inviteId)}`,
      ),
    previewInvite: (token: string) => json<InvitePreview>(invite(token)),
    acceptInvite: (token: string) => send<AcceptedInvite>('POST', `${invite(token)}/accept`),
    declineInvite: (token: string) => send<InvitePreview>('POST', `${invite(token)}/decline`),
  }
}

export type WorkspacesApi = ReturnType<typeof createWorkspacesApi>

/** The workspaces API for this mount. */
export function useWorkspacesApi(): WorkspacesApi {
  const platform = usePlatform()
  return useMemo(() => createWorkspacesApi(platform), [platform])
}
