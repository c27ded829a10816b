import { useCallback, useEffect, useId, useState } from 'react'
import type { WorkspaceSummary } from '@tessera/contracts/workspaces'
import { AppLink } from '@tessera/plugin-react/app-link'
import { ErrorAlert } from '@tessera/plugin-react/error-alert'
import { usePlatform } from '@tessera/plugin-react/platform'
import { workspacePath } from '../../../lib/destinations.ts'
import { describeFailure, type FormAlertContent } from '../../../lib/form-errors.ts'
import { useWorkspacesApi, WORKSPACE_EVENT } from '../../../lib/workspaces-api.ts'
import { AccountNav } from '../../account/components/account-nav.tsx'
import { AuthPage, Progress } from '../../account/components/auth-page.tsx'
import { RequireSignIn } from '../../account/components/require-sign-in.tsx'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkWorkspaceName } from '../../forms/validation.ts'
import { roleLabels } from '../roles.ts'
import { switchWorkspace } from '../switch-workspace.ts'

type ListState =
  | { status: 'loading' }
  | { status: 'ready'; workspaces: WorkspaceSummary[] }
  | { status: 'failed'; alert: FormAlertContent }

/** `/auth/workspaces`: the user's workspaces, and a form to create a team. */
export function WorkspacesPage() {
  return (
    <RequireSignIn title="Your workspaces">
      <Workspaces />
    </RequireSignIn>
  )
}

function Workspaces() {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const [list, setList] = useState<ListState>({ status: 'loading' })

  const load = useCallback(async () => {
    try {
      setList({ status: 'ready', workspaces: (await api.list()).workspaces })
    } catch (error) {
      setList({
        status: 'failed',
        alert: describeFailure(error, []).alert ?? {
          code: null,
          message: 'Your workspaces could not be loaded. Try again in a moment.',
        },
      })
    }
  }, [api])

  useEffect(() => {
    void load()
  }, [load])
  useEffect(() => platform.events.subscribe(WORKSPACE_EVENT, () => void load()), [platform, load])

  return (
    <AuthPage
      title="Your workspaces"
      width="wide"
      intro="Your personal workspace is yours alone; in a team workspace you work with the people you invite."
    >
      <AccountNav />
      {list.status === 'loading' && <Progress>Loading your workspaces…</Progress>}
      {list.status === 'failed' && (
        <ErrorAlert
          block="form-alert"
          message={list.alert.message}
          code={list.alert.code}
          requestId={list.alert.requestId}
        >
          <p className="form-alert__action">
            <button type="button" className="button button--secondary" onClick={() => void load()}>
              Try again
            </button>
          </p>
        </ErrorAlert>
      )}
      {list.status === 'ready' && (
        <ul className="member-list" aria-label="Your workspaces">
          {list.workspaces.map((workspace) => (
            <WorkspaceRow key={workspace.id} workspace={workspace} />
          ))}
        </ul>
      )}
      <div className="card">
        <CreateTeamForm />
      </div>
    </AuthPage>
  )
}

function WorkspaceRow({ workspace }: { workspace: WorkspaceSummary }) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const nameId = useId()
  const [switching, setSwitching] = useState(false)
  const people = workspace.memberCount === 1 ? '1 member' : `${workspace.memberCount} members`
  return (
    <li className={workspace.current ? 'member member--current' : 'member'}>
      <div className="member__facts">
        <p className="member__name" id={nameId}>
          <AppLink to={workspacePath(workspace.id)} className="break-anywhere">
            {workspace.name}
          </AppLink>
          {workspace.current && <span className="badge">Current</span>}
        </p>
        <p className="member__detail muted">
          {workspace.kind === 'personal' ? 'Personal' : 'Team'} · {roleLabels[workspace.role]} ·{' '}
          {people}
        </p>
      </div>
      {!workspace.current && (
        <div className="member__actions">
          <button
            type="button"
            className="button button--secondary"
            disabled={switching}
            aria-busy={switching}
            aria-describedby={nameId}
            onClick={() => {
              setSwitching(true)
              void switchWorkspace(platform, api, workspace).then((done) => {
                if (!done) setSwitching(false)
              })
            }}
          >
            {switching && <span className="spinner" aria-hidden="true" />}
            {switching ? 'Switching…' : 'Switch to it'}
          </button>
        </div>
      )}
    </li>
  )
}

/** `/auth/workspaces/new`: the header menu's "Create a team…", the form on its own. */
export function NewTeamPage() {
  return (
    <RequireSignIn title="Create a team">
      <AuthPage
        title="Create a team"
        intro="A team workspace is shared with the people you invite. You can rename it later."
      >
        <CreateTeamForm />
      </AuthPage>
    </RequireSignIn>
  )
}

function CreateTeamForm() {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const headingId = useId()
  const form = useForm({
    fields: { name: { validate: checkWorkspaceName } },
    submit: async ({ name }) => {
      const { workspace } = await api.create(name.trim())
      platform.notify({
        kind: 'success',
        message: `${workspace.name} is created. Invite the people you work with.`,
      })
      platform.navigate(workspacePath(workspace.id))
    },
  })
  return (
    <form
      ref={form.formRef}
      className="form"
      noValidate
      aria-labelledby={headingId}
      onSubmit={form.onSubmit}
    >
      <h2 id={headingId}>Create a team</h2>
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
      <Field
        label="Team name"
        autoComplete="organization"
        value={form.values.name}
        onValue={(value) => form.setValue('name', value)}
        onLeave={() => form.blur('name')}
        error={form.errors.name}
        hint="You become its owner, and can invite people once it exists."
        required
      />
      <SubmitButton pending={form.pending} label="Create team" pendingLabel="Creating…" />
    </form>
  )
}
