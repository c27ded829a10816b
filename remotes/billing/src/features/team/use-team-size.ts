import { useEffect, useState } from 'react'
import { useBillingApi } from '../../lib/use-billing-api.ts'

/**
 * How many members the team workspace has (what its seats are priced by); null while unknown
 * or when it cannot be read (the page then shows the price per seat alone).
 */
export function useTeamSize(workspaceId: string | null): number | null {
  const api = useBillingApi()
  const [size, setSize] = useState<{ id: string; members: number } | null>(null)
  useEffect(() => {
    if (workspaceId === null) return
    let live = true
    api.workspaces().then(
      (answer) => {
        const found = answer.workspaces.find((workspace) => workspace.id === workspaceId)
        if (live && found !== undefined) setSize({ id: workspaceId, members: found.memberCount })
      },
      (error: unknown) => {
        console.warn('The team’s member count could not be read', error)
      },
    )
    return () => {
      live = false
    }
  }, [api, workspaceId])
  return size !== null && size.id === workspaceId ? size.members : null
}
