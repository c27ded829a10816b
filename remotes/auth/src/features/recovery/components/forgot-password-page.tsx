import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useClient } from '../../../lib/use-client.ts'
import { AuthPage } from '../../account/components/auth-page.tsx'
import { useSentEmail } from '../../account/sent-email.tsx'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkEmail } from '../../forms/validation.ts'
import { useNext } from '../../sign-in/components/sign-in-page.tsx'

/** `/auth/forgot-password`: asks for a reset link. The answer is the same for every address. */
export function ForgotPasswordPage() {
  const platform = usePlatform()
  const client = useClient()
  const next = useNext()
  const [, setSent] = useSentEmail()

  const form = useForm({
    fields: { email: { validate: checkEmail } },
    submit: async ({ email }) => {
      const response = await client.api.auth.recover.$post({
        json: { email, next: authPaths.resetPassword },
      })
      const body = await response.json()
      setSent({ email: body.email, kind: 'recovery', next })
      platform.navigate(authPaths.checkEmail)
    },
  })

  return (
    <AuthPage
      title="Reset your password"
      intro="Enter the address of your account. If it has one, we will email you a link to choose a new password."
    >
      <form
        ref={form.formRef}
        className="form"
        noValidate
        aria-label="Ask for a reset link"
        onSubmit={form.onSubmit}
      >
        <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
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
        <SubmitButton
          pending={form.pending}
          cooldown={form.cooldown}
          label="Email me a reset link"
          pendingLabel="Sending the link…"
        />
      </form>
      <div className="auth-page__alternatives">
        <p>
          Remembered it? <AppLink to={withNext(authPaths.signIn, next)}>Sign in</AppLink>
        </p>
      </div>
    </AuthPage>
  )
}
