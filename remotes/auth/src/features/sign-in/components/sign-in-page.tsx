import { useEffect, useRef, useState } from 'react'
import type { SignedOutReason } from '@tessera/contracts/platform'
import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths, DEFAULT_DESTINATION } from '../../../lib/destinations.ts'
import { safeNextPath, withNext } from '../../../lib/next-path.ts'
import { notifyFailure } from '../../../lib/notify-failure.ts'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { useSearchParams } from '@tessera/plugin-react/use-search'
import { AuthPage } from '../../account/components/auth-page.tsx'
import { useSentEmail } from '../../account/sent-email.tsx'
import { Field, PasswordField } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkEmail, checkPassword } from '../../forms/validation.ts'

/** The checked `next` of the address, or null. */
export function useNext(): string | null {
  const search = useSearchParams()
  return safeNextPath(search.get('next'), window.location.origin)
}

/**
 * Sends a signed-in visitor on to `next` (or the default page), replacing the sign-in page in
 * history. It also finishes the round trip when another tab signs in.
 */
export function useLeaveWhenSignedIn(next: string | null): void {
  const platform = usePlatform()
  const session = useSession()
  const signedIn = session.status === 'signed-in'
  // Once: leaving changes the address, and with it `next`, before this page is unmounted.
  const left = useRef(false)
  useEffect(() => {
    if (!signedIn || left.current) return
    left.current = true
    platform.navigate(next ?? DEFAULT_DESTINATION, { replace: true })
  }, [signedIn, next, platform])
}

/** Why the person is here, when something other than they signed them out. */
const signedOutSentences: Record<SignedOutReason, string> = {
  'other-device': 'You were signed out from another device. Sign in again to continue.',
  'other-tab': 'You signed out in another tab. Sign in again to continue.',
  expired: 'Your session expired. Sign in again to continue.',
}

/** `/auth/sign-in`: email and password, with ways out for people who cannot use them. */
export function SignInPage() {
  const platform = usePlatform()
  const session = useSession()
  const signedOutBy = session.status === 'signed-out' ? session.reason : undefined
  const api = useAuthApi()
  const next = useNext()
  const [, setSent] = useSentEmail()
  const [resending, setResending] = useState(false)
  useLeaveWhenSignedIn(next)

  const form = useForm({
    fields: {
      email: { validate: checkEmail },
      password: { validate: checkPassword },
    },
    submit: async ({ email, password }) => {
      const body = await api.signIn({ email, password })
      platform.notify({
        kind: 'success',
        message: `Signed in as ${body.user.displayName ?? body.user.email}.`,
      })
      await platform.session.refresh()
    },
  })

  const resendConfirmation = async () => {
    if (resending) return
    setResending(true)
    try {
      // For an address not yet confirmed, a sign-in link is a fresh confirmation link.
      await api.sendMagicLink({ email: form.values.email, ...(next ? { next } : {}) })
      setSent({ email: form.values.email.trim(), kind: 'signup', next })
      platform.navigate(authPaths.checkEmail)
    } catch (error) {
      notifyFailure(platform, error, 'The confirmation link could not be sent.')
    } finally {
      setResending(false)
    }
  }

  return (
    <AuthPage
      title="Sign in to Tessera"
      intro={
        next
          ? 'Sign in to continue to the page you asked for.'
          : 'Welcome back. Sign in to continue.'
      }
    >
      {signedOutBy && (
        <p className="notice" role="status">
          {signedOutSentences[signedOutBy]}
        </p>
      )}
      <form
        ref={form.formRef}
        className="form"
        noValidate
        aria-label="Sign in with your password"
        onSubmit={form.onSubmit}
      >
        <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown}>
          {form.alert?.code === 'email_not_confirmed' && (
            <p className="form-alert__action">
              <button
                type="button"
                className="button button--secondary"
                aria-busy={resending}
                disabled={resending}
                onClick={() => void resendConfirmation()}
              >
                {resending && <span className="spinner" aria-hidden="true" />}
                {resending ? 'Sending…' : 'Send the confirmation link again'}
              </button>
            </p>
          )}
          {form.alert?.code === 'invalid_credentials' && (
            <p className="form-alert__action">
              <AppLink to={withNext(authPaths.forgotPassword, next)}>Reset your password</AppLink>
            </p>
          )}
        </FormAlert>
        <Field
          label="Email address"
          type="email"
          autoComplete="username"
          inputMode="email"
          autoCapitalize="off"
          spellCheck={false}
          value={form.values.email}
          onValue={(value) => form.setValue('email', value)}
          onLeave={() => form.blur('email')}
          error={form.errors.email}
          required
        />
        <PasswordField
          label="Password"
          autoComplete="current-password"
          value={form.values.password}
          onValue={(value) => form.setValue('password', value)}
          onLeave={() => form.blur('password')}
          error={form.errors.password}
          labelAside={
            <AppLink className="field__aside-link" to={withNext(authPaths.forgotPassword, next)}>
              Forgot password?
            </AppLink>
          }
          required
        />
        <SubmitButton
          pending={form.pending}
          cooldown={form.cooldown}
          label="Sign in"
          pendingLabel="Signing in…"
        />
      </form>
      <div className="auth-page__alternatives">
        <p>
          <AppLink to={withNext(authPaths.magicLink, next)}>
            Email me a sign-in link instead
          </AppLink>
        </p>
        <p>
          New to Tessera? <AppLink to={withNext(authPaths.signUp, next)}>Create an account</AppLink>
        </p>
      </div>
    </AuthPage>
  )
}
