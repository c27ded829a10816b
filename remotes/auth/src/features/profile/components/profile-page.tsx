import { AuthPage, Progress } from '../../account/components/auth-page.tsx'
import { AccountNav } from '../../account/components/account-nav.tsx'
import { RequireSignIn } from '../../account/components/require-sign-in.tsx'
import { SlotArea } from '@tessera/plugin-react/slot-area'
import { useMe } from '../../../lib/use-me.ts'
import { DisplayNameForm } from './display-name-form.tsx'
import { EmailForm } from './email-form.tsx'
import { PasswordForm } from './password-form.tsx'

/** `/auth/profile`: display name, email address and password, each its own form. */
export function ProfilePage() {
  return (
    <RequireSignIn title="Your profile">
      <Profile />
    </RequireSignIn>
  )
}

function Profile() {
  const { state, reload } = useMe()
  return (
    <AuthPage title="Your profile" width="wide">
      <AccountNav />
      {(state.status === 'loading' || state.status === 'signed-out') && (
        <Progress>Loading your profile…</Progress>
      )}
      {state.status === 'failed' && (
        <div role="alert" className="form-alert">
          <p className="form-alert__message">{state.message}</p>
          <p className="form-alert__action">
            <button
              type="button"
              className="button button--secondary"
              onClick={() => void reload()}
            >
              Try again
            </button>
          </p>
        </div>
      )}
      {state.status === 'ready' && (
        <div className="card-stack">
          <div className="card">
            <DisplayNameForm current={state.me.profile.displayName} />
          </div>
          <div className="card">
            <EmailForm
              user={state.me.user}
              recovery={state.me.session.recovery}
              onRequested={reload}
            />
          </div>
          <div className="card">
            <PasswordForm recovery={state.me.session.recovery} onChanged={() => reload()} />
          </div>
          {/* Other plugins' panels for this account (the account.section slot). */}
          <SlotArea
            key={state.me.user.id}
            slot="account.section"
            props={{
              user: {
                id: state.me.user.id,
                email: state.me.user.email,
                displayName: state.me.profile.displayName,
              },
            }}
            className="card-stack"
          />
        </div>
      )}
    </AuthPage>
  )
}
