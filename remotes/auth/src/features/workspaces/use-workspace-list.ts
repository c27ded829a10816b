import { useCallback, useEffect, useRef, useState } from 'react'
import type { WorkspaceEventData, WorkspacesResponse } from '@tessera/contracts/workspaces'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useWorkspacesApi, WORKSPACE_EVENT } from '../../lib/workspaces-api.ts'

/**
 * The signed-in user's workspaces for the header: read once, then again on every
 * `workspace.changed` event, so a switch in another tab of this session, a new team, a rename or
 * a removal shows without a reload. Being removed from the current workspace is said in a notice
 * (the BFF has moved this session back to the personal workspace).
 */
export function useWorkspaceList(): WorkspacesResponse | null {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const [list, setList] = useState<WorkspacesResponse | null>(null)
  const shown = useRef<WorkspacesResponse | null>(null)

  const load = useCallback(
    async (removedId?: string) => {
      try {
        const next = await api.list()
        const before = shown.current
        const left = before?.workspaces.find(
          (workspace) => workspace.id === removedId && workspace.id === before.currentId,
        )
        const now = next.workspaces.find((workspace) => workspace.id === next.currentId)
        if (left && now && !next.workspaces.some((workspace) => workspace.id === left.id)) {
          platform.notify({
            kind: 'info',
            message: `You are no longer a member of ${left.name}. You are working in ${now.name} now.`,
          })
        }
        shown.current = next
        setList(next)
      } catch (error) {
        // The menu still offers the account pages; the list is read again on the next change.
        console.warn('The list of workspaces could not be read', error)
      }
    },
    [api, platform],
  )

  useEffect(() => {
    void load()
    return platform.events.subscribe(WORKSPACE_EVENT, (event) => {
      const data = event.data as Partial<WorkspaceEventData> | null
      void load(data?.change === 'removed' ? data.workspaceId : undefined)
    })
  }, [platform, load])

  return list
}
