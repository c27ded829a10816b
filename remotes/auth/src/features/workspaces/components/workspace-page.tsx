import { useCallback, useEffect, useId, useState } from 'react'
import type {
  WorkspaceEventData,
  WorkspaceInvite,
  WorkspaceMember,
  WorkspaceSummary,
} from '@tessera/contracts/workspaces'
import { AppLink } from '@tessera/plugin-react/app-link'
import { ErrorAlert } from '@tessera/plugin-react/error-alert'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { authPaths } from '../../../lib/destinations.ts'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'
import { useWorkspacesApi, WORKSPACE_EVENT } from '../../../lib/workspaces-api.ts'
import { AccountNav } from '../../account/components/account-nav.tsx'
import { AuthPage, Progress } from '../../account/components/auth-page.tsx'
import { RequireSignIn } from '../../account/components/require-sign-in.tsx'
import { canInvite, canRename, roleWithArticle } from '../roles.ts'
import { ConfirmAction } from './confirm-action.tsx'
import { InviteForm } from './invite-form.tsx'
import { InviteList } from './invite-list.tsx'
import { MemberList } from './member-list.tsx'
import { RenameForm } from './rename-form.tsx'

type PageState =
  | { status: 'loading' }
  | { status: 'failed'; alert: FormAlertContent }
  | {
      status: 'ready'
      workspace: WorkspaceSummary
      members: WorkspaceMember[]
      /** Null for those who may not see them (members, personal workspaces). */
      invites: WorkspaceInvite[] | null
    }

/** `/auth/workspaces/<id>`: a workspace's members, invites and name, as the viewer's role allows. */
export function WorkspacePage({ id }: { id: string }) {
  return (
    <RequireSignIn title="Workspace">
      <Workspace id={id} />
    </RequireSignIn>
  )
}

function Workspace({ id }: { id: string }) {
  const platform = usePlatform()
  const session = useSession()
  const api = useWorkspacesApi()
  const [state, setState] = useState<PageState>({ status: 'loading' })
  const viewerId = session.status === 'signed-in' ? session.user.id : ''

  const load = useCallback(async () => {
    try {
      const [{ workspaces }, { members }] = await Promise.all([api.list(), api.members(id)])
      const workspace = workspaces.find((candidate) => candidate.id === id)
      if (workspace === undefined) {
        setState({
          status: 'failed',
          alert: {
            code: 'not_found',
            message: 'You are no longer a member of this workspace. Choose one of yours instead.',
          },
        })
        return
      }
      const invites = canInvite(workspace) ? (await api.invites(id)).invites : null
      setState({ status: 'ready', workspace, members, invites })
    } catch (error) {
      setState({
        status: 'failed',
        alert: describeFailure(error, []).alert ?? {
          code: null,
          message: 'This workspace could not be loaded. Try again in a moment.',
        },
      })
    }
  }, [api, id])

  useEffect(() => {
    void load()
  }, [load])

  // Another member's change (a join, a role, an invite, a new name) shows up without a reload.
  useEffect(
    () =>
      platform.events.subscribe(WORKSPACE_EVENT, (event) => {
        const data = event.data as Partial<WorkspaceEventData> | null
        if (data?.workspaceId === id && data.change !== 'current') void load()
      }),
    [platform, id, load],
  )

  if (state.status !== 'ready') {
    return (
      <AuthPage title="Workspace" width="wide">
        <AccountNav />
        {state.status === 'loading' ? (
          <Progress>Loading the workspace…</Progress>
        ) : (
          <ErrorAlert
            block="form-alert"
            message={state.alert.message}
            code={state.alert.code}
            requestId={state.alert.requestId}
            link={{ to: authPaths.workspaces, label: 'See your workspaces' }}
          >
            <p className="form-alert__action">
              <button
                type="button"
                className="button button--secondary"
                onClick={() => void load()}
              >
                Try again
              </button>
            </p>
          </ErrorAlert>
        )}
      </AuthPage>
    )
  }

  const { workspace, members, invites } = state
  return (
    <AuthPage
      title={workspace.name}
      width="wide"
      intro={`${workspace.kind === 'personal' ? 'Your personal workspace' : 'A team workspace'}: you are ${roleWithArticle[workspace.role]}.`}
    >
      <AccountNav />
      <p>
        <AppLink to={authPaths.workspaces}>All your workspaces</AppLink>
      </p>
      <div className="card-stack">
        <section className="card" aria-labelledby="members-heading">
          <h2 id="members-heading">
            Members <span className="muted">({members.length})</span>
          </h2>
          {workspace.kind === 'personal' && (
            <p className="muted">
              A personal workspace is yours alone. Create a team workspace to work with others.
            </p>
          )}
          <MemberList
            workspace={workspace}
            members={members}
            viewerId={viewerId}
            onChanged={load}
          />
        </section>
        {invites !== null && (
          <section className="card" aria-labelledby="invites-heading">
            <h2 id="invites-heading">Invites</h2>
            <InviteForm workspaceId={workspace.id} onSent={load} />
            <h3>Waiting for an answer</h3>
            <InviteList workspaceId={workspace.id} invites={invites} onChanged={load} />
          </section>
        )}
        {canRename(workspace) && (
          <div className="card">
            <RenameForm key={workspace.name} workspace={workspace} onRenamed={load} />
          </div>
        )}
        {workspace.kind === 'team' && <LeaveCard workspace={workspace} />}
      </div>
    </AuthPage>
  )
}

function LeaveCard({ workspace }: { workspace: WorkspaceSummary }) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const headingId = useId()
  const leave = async () => {
    await api.leave(workspace.id)
    platform.notify({ kind: 'success', message: `You left ${workspace.name}.` })
    platform.navigate(authPaths.workspaces)
  }
  return (
    <section className="card card--quiet" aria-labelledby={headingId}>
      <h2 id={headingId}>Leave this workspace</h2>
      <p>
        You lose access to {workspace.name} and what is shared in it. To come back, you need a new
        invite.
      </p>
      <ConfirmAction
        label="Leave workspace"
        question={`Leave ${workspace.name}?`}
        confirmLabel="Yes, leave"
        pendingLabel="Leaving…"
        run={leave}
      />
    </section>
  )
}
