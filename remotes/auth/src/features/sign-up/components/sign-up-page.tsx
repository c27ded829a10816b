import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { AuthPage } from '../../account/components/auth-page.tsx'
import { useSentEmail } from '../../account/sent-email.tsx'
import { Field, PasswordField } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import {
  checkConfirmation,
  checkEmail,
  checkNewPassword,
  checkOptionalDisplayName,
} from '../../forms/validation.ts'
import { useLeaveWhenSignedIn, useNext } from '../../sign-in/components/sign-in-page.tsx'
import { PasswordStrengthHint } from '../../forms/components/password-strength-hint.tsx'

/** `/auth/sign-up`: a new account, confirmed by a link sent to the address. */
export function SignUpPage() {
  const platform = usePlatform()
  const api = useAuthApi()
  const next = useNext()
  const [, setSent] = useSentEmail()
  useLeaveWhenSignedIn(next)

  const form = useForm({
    fields: {
      displayName: { validate: checkOptionalDisplayName },
      email: { validate: checkEmail },
      password: { validate: checkNewPassword },
      confirmation: {
        live: true,
        validate: (value, values, phase) => checkConfirmation(value, values.password, phase),
      },
    },
    submit: async ({ displayName, email, password }) => {
      const name = displayName.trim()
      const body = await api.signUp({
        email,
        password,
        ...(name === '' ? {} : { displayName: name }),
        ...(next ? { next } : {}),
      })
      if ('status' in body) {
        setSent({ email: body.email, kind: 'signup', next })
        platform.navigate(authPaths.checkEmail)
        return
      }
      // Auth confirmed the address at once (a stand-in configured to autoconfirm).
      platform.notify({ kind: 'success', message: 'Your account is ready. Welcome to Tessera.' })
      await platform.session.refresh()
    },
    adjustFailure: (failure) =>
      failure.alert === null && failure.fieldErrors.email !== undefined
        ? {
            ...failure,
            alert: {
              code: 'email_taken',
              message: 'Already have an account with this address? Sign in, or reset its password.',
            },
          }
        : failure,
  })

  return (
    <AuthPage
      title="Create your Tessera account"
      intro="We will send a link to your email address to confirm it."
    >
      <form
        ref={form.formRef}
        className="form"
        noValidate
        aria-label="Create an account"
        onSubmit={form.onSubmit}
      >
        <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown}>
          {form.alert?.code === 'email_taken' && (
            <p className="form-alert__action">
              <AppLink to={withNext(authPaths.signIn, next)}>Sign in</AppLink>
              {' · '}
              <AppLink to={authPaths.forgotPassword}>Reset your password</AppLink>
            </p>
          )}
        </FormAlert>
        <Field
          label="Display name (optional)"
          autoComplete="name"
          value={form.values.displayName}
          onValue={(value) => form.setValue('displayName', value)}
          onLeave={() => form.blur('displayName')}
          error={form.errors.displayName}
          hint="How Tessera greets you. You can change it later."
        />
        <Field
          label="Email address"
          type="email"
          autoComplete="email"
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
          autoComplete="new-password"
          value={form.values.password}
          onValue={(value) => form.setValue('password', value)}
          onLeave={() => form.blur('password')}
          error={form.errors.password}
          hint={<PasswordStrengthHint password={form.values.password} />}
          liveHint
          required
        />
        <PasswordField
          label="Confirm password"
          autoComplete="new-password"
          value={form.values.confirmation}
          onValue={(value) => form.setValue('confirmation', value)}
          onLeave={() => form.blur('confirmation')}
          error={form.errors.confirmation}
          required
        />
        <SubmitButton
          pending={form.pending}
          cooldown={form.cooldown}
          label="Create account"
          pendingLabel="Creating your account…"
        />
      </form>
      <div className="auth-page__alternatives">
        <p>
          Already have an account? <AppLink to={withNext(authPaths.signIn, next)}>Sign in</AppLink>
        </p>
      </div>
    </AuthPage>
  )
}
