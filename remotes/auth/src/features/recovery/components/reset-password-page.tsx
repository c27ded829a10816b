import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths, DEFAULT_DESTINATION } from '../../../lib/destinations.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useMe } from '../../../lib/use-me.ts'
import { AuthPage, Progress } from '../../account/components/auth-page.tsx'
import { PasswordForm } from '../../profile/components/password-form.tsx'

/**
 * `/auth/reset-password`: where a recovery link lands. The link signed the person in with a
 * recovery session, so the old password is not asked for.
 */
export function ResetPasswordPage() {
  const platform = usePlatform()
  const { state, reload } = useMe()

  if (state.status === 'loading') {
    return (
      <AuthPage title="Choose a new password">
        <Progress>Checking your reset link…</Progress>
      </AuthPage>
    )
  }
  if (state.status === 'failed') {
    return (
      <AuthPage title="Choose a new password">
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
      </AuthPage>
    )
  }
  if (state.status === 'signed-out') {
    return (
      <AuthPage
        title="Choose a new password"
        intro="To choose a new password, open the reset link we email you. Reset links work once, for a limited time."
      >
        <p>
          <AppLink className="button button--primary" to={authPaths.forgotPassword}>
            Ask for a reset link
          </AppLink>
        </p>
        <p>
          Remembered it? <AppLink to={authPaths.signIn}>Sign in</AppLink>
        </p>
      </AuthPage>
    )
  }
  const recovery = state.me.session.recovery
  return (
    <AuthPage
      title="Choose a new password"
      intro={
        <>
          For <strong className="break-anywhere">{state.me.user.email}</strong>.{' '}
          {recovery
            ? 'Your other devices will be signed out.'
            : 'You are signed in normally, so enter your current password too.'}
        </>
      }
    >
      <PasswordForm
        recovery={recovery}
        title="Your new password"
        submitLabel="Save new password"
        onChanged={async () => {
          await platform.session.refresh()
          platform.navigate(DEFAULT_DESTINATION, { replace: true })
        }}
      />
    </AuthPage>
  )
}
