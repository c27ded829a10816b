import { InvitePage } from '../../invites/components/invite-page.tsx'
import { WorkspacePage } from './workspace-page.tsx'
import { NewTeamPage, WorkspacesPage } from './workspaces-page.tsx'

/**
 * `/workspaces`, `/workspaces/new`, `/workspaces/<id>` and `/invites/<token>`: a chunk of their own, so the sign-in
 * page (the remote's first route) does not carry them.
 */
export default function WorkspaceRoutes({ route }: { route: string }) {
  if (route.startsWith('/invites/')) {
    return <InvitePage token={decodeURIComponent(route.slice('/invites/'.length))} />
  }
  if (route === '/workspaces/new') return <NewTeamPage />
  if (route.startsWith('/workspaces/')) {
    const id = decodeURIComponent(route.slice('/workspaces/'.length))
    return <WorkspacePage key={id} id={id} />
  }
  return <WorkspacesPage />
}
