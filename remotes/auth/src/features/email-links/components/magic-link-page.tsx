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
import { useLeaveWhenSignedIn, useNext } from '../../sign-in/components/sign-in-page.tsx'

/** `/auth/magic-link`: sign in with a link sent by email, no password. */
export function MagicLinkPage() {
  const platform = usePlatform()
  const client = useClient()
  const next = useNext()
  const [, setSent] = useSentEmail()
  useLeaveWhenSignedIn(next)

  const form = useForm({
    fields: { email: { validate: checkEmail } },
    submit: async ({ email }) => {
      const response = await client.api.auth['magic-link'].$post({
        json: { email, ...(next ? { next } : {}) },
      })
      const body = await response.json()
      setSent({ email: body.email, kind: 'magiclink', next })
      platform.navigate(authPaths.checkEmail)
    },
  })

  return (
    <AuthPage
      title="Sign in with an email link"
      intro="Enter the address of your account. We will email you a link that signs you in."
    >
      <form
        ref={form.formRef}
        className="form"
        noValidate
        aria-label="Email me a sign-in link"
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
          label="Email me a link"
          pendingLabel="Sending the link…"
        />
      </form>
      <div className="auth-page__alternatives">
        <p>
          <AppLink to={withNext(authPaths.signIn, next)}>
            Sign in with your password instead
          </AppLink>
        </p>
      </div>
    </AuthPage>
  )
}
