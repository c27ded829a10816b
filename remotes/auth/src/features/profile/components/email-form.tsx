import { useId } from 'react'
import type { MeUser } from '@tessera/contracts/auth'
import { authPaths } from '../../../lib/destinations.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { Field, PasswordField } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkEmail, checkPassword } from '../../forms/validation.ts'

/** A new address, confirmed by a link sent to it; the current one stays until then. */
export function EmailForm({
  user,
  recovery,
  onRequested,
}: {
  user: MeUser
  /** A session from a recovery link changes the address without the current password. */
  recovery: boolean
  onRequested: () => Promise<void>
}) {
  const platform = usePlatform()
  const api = useAuthApi()
  const headingId = useId()

  const form = useForm({
    fields: {
      email: {
        validate: (value) =>
          checkEmail(value) ??
          (value.trim().toLowerCase() === user.email
            ? 'This is your email address already.'
            : null),
      },
      currentPassword: { validate: (value) => (recovery ? null : checkPassword(value)) },
    },
    submit: async ({ email, currentPassword }) => {
      const body = await api.changeEmail({
        email,
        next: authPaths.profile,
        ...(recovery ? {} : { currentPassword }),
      })
      form.reset({ email: '', currentPassword: '' })
      platform.notify({
        kind: 'success',
        message: `We sent a link to ${body.email}. Open it to confirm your new address.`,
      })
      await onRequested()
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
      <h2 id={headingId}>Email</h2>
      <p>
        You sign in with <strong className="break-anywhere">{user.email}</strong>.
      </p>
      {user.pendingEmail && (
        <p className="notice" role="status">
          Waiting for you to confirm <strong className="break-anywhere">{user.pendingEmail}</strong>
          : open the link we sent there. Until then, keep using your current address.
        </p>
      )}
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
      <Field
        label="New email address"
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
      {!recovery && (
        <PasswordField
          label="Current password"
          autoComplete="current-password"
          value={form.values.currentPassword}
          onValue={(value) => form.setValue('currentPassword', value)}
          onLeave={() => form.blur('currentPassword')}
          error={form.errors.currentPassword}
          required
        />
      )}
      <SubmitButton
        pending={form.pending}
        cooldown={form.cooldown}
        label="Change email"
        pendingLabel="Sending the link…"
      />
    </form>
  )
}
