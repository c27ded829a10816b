import type { ReactNode } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { authPaths } from '../../../lib/destinations.ts'
import { AuthPage } from '../../account/components/auth-page.tsx'
import { useSentEmail, type SentEmailKind } from '../../account/sent-email.tsx'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkEmail } from '../../forms/validation.ts'

interface EmailLinkRequestProps {
  title: string
  intro: string
  /** The form's accessible name. */
  formLabel: string
  submitLabel: string
  kind: SentEmailKind
  next: string | null
  /** Asks the BFF to send the link; resolves with the address it was sent to. */
  send: (email: string) => Promise<{ email: string }>
  /** Other ways forward, under the form. */
  alternatives: ReactNode
}

/**
 * A page that asks for an address and emails a link to it (magic link, password reset), then
 * shows "check your email".
 */
export function EmailLinkRequest(props: EmailLinkRequestProps) {
  const platform = usePlatform()
  const [, setSent] = useSentEmail()
  const form = useForm({
    fields: { email: { validate: checkEmail } },
    submit: async ({ email }) => {
      const sent = await props.send(email)
      setSent({ email: sent.email, kind: props.kind, next: props.next })
      platform.navigate(authPaths.checkEmail)
    },
  })

  return (
    <AuthPage title={props.title} intro={props.intro}>
      <form
        ref={form.formRef}
        className="form"
        noValidate
        aria-label={props.formLabel}
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
          label={props.submitLabel}
          pendingLabel="Sending the link…"
        />
      </form>
      <div className="auth-page__alternatives">
        <p>{props.alternatives}</p>
      </div>
    </AuthPage>
  )
}
