import { useCallback, useEffect, useRef, useState } from 'react'
import type { InvitePreview, InviteState } from '@tessera/contracts/workspaces'
import { AppLink } from '@tessera/plugin-react/app-link'
import { ErrorAlert } from '@tessera/plugin-react/error-alert'
import { formatDate } from '@tessera/plugin-react/format'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { authPaths, invitePath, workspacePath } from '../../../lib/destinations.ts'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'
import { withNext } from '../../../lib/next-path.ts'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import { AuthPage, Progress } from '../../account/components/auth-page.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { roleLabels, roleWithArticle } from '../../workspaces/roles.ts'

/** Why a link that is not pending cannot be used, and what to do instead (the BFF's words). */
const closedSentences: Record<Exclude<InviteState, 'pending'>, string> = {
  expired:
    'This invite has expired. Ask the person who invited you to resend it from the workspace.',
  accepted:
    'This invite was already accepted, declined or revoked. Ask the workspace for a new one if you still need it.',
  declined:
    'This invite was already accepted, declined or revoked. Ask the workspace for a new one if you still need it.',
  revoked:
    'This invite was already accepted, declined or revoked. Ask the workspace for a new one if you still need it.',
}

/** The page's heading for each state of the invite. */
const titles: Record<InviteState, string> = {
  pending: 'Join {workspace}',
  expired: 'This invite has expired',
  accepted: 'This invite was already used',
  declined: 'This invite was already used',
  revoked: 'This invite was withdrawn',
}

type PreviewState =
  | { status: 'loading' }
  | { status: 'ready'; invite: InvitePreview }
  | { status: 'failed'; alert: FormAlertContent }

/**
 * `/auth/invites/<token>`, where an invite email's link lands. Signed out, it offers to sign in
 * or sign up and come back; signed in, it shows the invite and, for the invited address, Accept
 * and Decline. Accepting makes the workspace this session's current one.
 */
export function InvitePage({ token }: { token: string }) {
  const session = useSession()
  if (session.status === 'loading') {
    return (
      <AuthPage title="Your invite">
        <Progress>Checking your session…</Progress>
      </AuthPage>
    )
  }
  if (session.status === 'signed-out') return <SignedOutInvite token={token} />
  return <Invite token={token} email={session.user.email} />
}

function SignedOutInvite({ token }: { token: string }) {
  const back = invitePath(token)
  return (
    <AuthPage
      title="You are invited to a workspace"
      intro="Sign in with the address the invite was sent to, or create an account with it. You come back here to accept."
    >
      <div className="card invite-choices">
        <AppLink className="button button--primary" to={withNext(authPaths.signIn, back)}>
          Sign in
        </AppLink>
        <AppLink className="button button--secondary" to={withNext(authPaths.signUp, back)}>
          Create an account
        </AppLink>
      </div>
    </AuthPage>
  )
}

function Invite({ token, email }: { token: string; email: string }) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const authApi = useAuthApi()
  const [state, setState] = useState<PreviewState>({ status: 'loading' })
  const [pending, setPending] = useState<'accept' | 'decline' | 'switch' | null>(null)
  const [alert, setAlert] = useState<FormAlertContent | null>(null)
  const [declinedHere, setDeclinedHere] = useState(false)
  const alertRef = useRef<HTMLDivElement>(null)

  const load = useCallback(async () => {
    try {
      setState({ status: 'ready', invite: await api.previewInvite(token) })
    } catch (error) {
      setState({
        status: 'failed',
        alert: describeFailure(error, []).alert ?? {
          code: null,
          message: 'This invite could not be read. Try again in a moment.',
        },
      })
    }
  }, [api, token])

  useEffect(() => {
    void load()
  }, [load])

  const act = async (what: 'accept' | 'decline') => {
    if (pending !== null || state.status !== 'ready') return
    setPending(what)
    setAlert(null)
    try {
      if (what === 'accept') {
        const { workspace } = await api.acceptInvite(token)
        platform.notify({
          kind: 'success',
          message: `You joined ${workspace.name}. You are working in it now.`,
        })
        platform.navigate(workspacePath(workspace.id))
        return
      }
      const declined = await api.declineInvite(token)
      setState({ status: 'ready', invite: declined })
      setDeclinedHere(true)
      platform.notify({
        kind: 'success',
        message: `You declined the invite to ${declined.workspaceName}. Its link no longer works.`,
      })
    } catch (error) {
      setAlert(describeFailure(error, []).alert)
      requestAnimationFrame(() => alertRef.current?.focus())
    }
    setPending(null)
  }

  /** For a forwarded link: sign out, then sign in (as the invited address) and come back. */
  const signInAsAnother = async () => {
    setPending('switch')
    try {
      await authApi.signOut('local')
    } catch (error) {
      setAlert(describeFailure(error, []).alert)
      setPending(null)
      return
    }
    await platform.session.refresh()
    platform.navigate(withNext(authPaths.signIn, invitePath(token)))
  }

  if (state.status === 'loading') {
    return (
      <AuthPage title="Your invite">
        <Progress>Reading the invite…</Progress>
      </AuthPage>
    )
  }
  if (state.status === 'failed') {
    return (
      <AuthPage title="This invite cannot be opened">
        <ErrorAlert
          block="form-alert"
          message={state.alert.message}
          code={state.alert.code}
          requestId={state.alert.requestId}
          link={{ to: authPaths.workspaces, label: 'Go to your workspaces' }}
        />
      </AuthPage>
    )
  }

  const { invite } = state
  const open = invite.state === 'pending'
  const title = declinedHere
    ? `You declined the invite to ${invite.workspaceName}`
    : titles[invite.state].replace('{workspace}', invite.workspaceName)
  return (
    <AuthPage
      title={title}
      intro={`${invite.invitedBy ?? 'Someone'} invited ${invite.email} to work in ${invite.workspaceName} as ${roleWithArticle[invite.role]}.`}
    >
      <div className="card">
        <dl className="facts">
          <dt>Workspace</dt>
          <dd className="break-anywhere">{invite.workspaceName}</dd>
          <dt>Invited by</dt>
          <dd className="break-anywhere">{invite.invitedBy ?? 'Someone who has since left'}</dd>
          <dt>Role</dt>
          <dd>{roleLabels[invite.role]}</dd>
          <dt>For</dt>
          <dd className="break-anywhere">{invite.email}</dd>
          <dt>{invite.state === 'expired' ? 'Expired' : 'Valid until'}</dt>
          <dd>
            <time dateTime={invite.expiresAt}>{formatDate(invite.expiresAt)}</time>
          </dd>
        </dl>
        <FormAlert alert={alert} alertRef={alertRef} />
        {invite.state !== 'pending' && !declinedHere && (
          <ErrorAlert
            block="form-alert"
            message={closedSentences[invite.state]}
            code={invite.state === 'expired' ? 'invite_expired' : 'invite_used'}
            link={{ to: authPaths.workspaces, label: 'Go to your workspaces' }}
          />
        )}
        {open && !invite.forYou && (
          <ErrorAlert
            block="form-alert"
            message={`This invite is for another email address (${invite.email}); you are signed in as ${email}. Sign in with the invited address, or ask for an invite to yours.`}
            code="invite_wrong_account"
          >
            <p className="form-alert__action">
              <button
                type="button"
                className="button button--secondary"
                disabled={pending !== null}
                aria-busy={pending === 'switch'}
                onClick={() => void signInAsAnother()}
              >
                Sign in with another account
              </button>
            </p>
          </ErrorAlert>
        )}
        {open && invite.forYou && (
          <div className="invite-choices">
            <button
              type="button"
              className="button button--primary"
              disabled={pending !== null}
              aria-busy={pending === 'accept'}
              onClick={() => void act('accept')}
            >
              {pending === 'accept' && <span className="spinner" aria-hidden="true" />}
              {pending === 'accept' ? 'Joining…' : 'Accept and join'}
            </button>
            <button
              type="button"
              className="button button--secondary"
              disabled={pending !== null}
              aria-busy={pending === 'decline'}
              onClick={() => void act('decline')}
            >
              {pending === 'decline' ? 'Declining…' : 'Decline'}
            </button>
          </div>
        )}
      </div>
    </AuthPage>
  )
}
