import { useId } from 'react'
import type { SignedIn } from '@tessera/contracts/auth'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { PasswordField } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { PasswordStrengthHint } from '../../forms/components/password-strength-hint.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkConfirmation, checkNewPassword, checkPassword } from '../../forms/validation.ts'

interface PasswordFormProps {
  /** After a recovery link the old password is not asked for (the person has forgotten it). */
  recovery: boolean
  onChanged: (body: SignedIn) => Promise<void> | void
  /** The heading the form is named by, when the page does not name it otherwise. */
  title?: string
  submitLabel?: string
}

/** A new password (with the current one unless this is a recovery session) and its confirmation. */
export function PasswordForm({
  recovery,
  onChanged,
  title = 'Password',
  submitLabel = 'Change password',
}: PasswordFormProps) {
  const platform = usePlatform()
  const api = useAuthApi()
  const headingId = useId()

  const form = useForm({
    fields: {
      currentPassword: { validate: (value) => (recovery ? null : checkPassword(value)) },
      password: { validate: checkNewPassword },
      confirmation: {
        live: true,
        validate: (value, values, phase) => checkConfirmation(value, values.password, phase),
      },
    },
    submit: async ({ currentPassword, password }) => {
      const body = await api.changePassword({
        password,
        ...(recovery ? {} : { currentPassword }),
      })
      form.reset({ currentPassword: '', password: '', confirmation: '' })
      platform.notify({
        kind: 'success',
        message: 'Your new password is saved. Your other devices were signed out.',
      })
      await onChanged(body)
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
      <h2 id={headingId}>{title}</h2>
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
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
      <PasswordField
        label="New password"
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
        label="Confirm new password"
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
        label={submitLabel}
        pendingLabel="Saving…"
      />
    </form>
  )
}
