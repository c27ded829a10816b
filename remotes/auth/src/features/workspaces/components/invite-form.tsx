import { useId, useState } from 'react'
import type { InviteRole } from '@tessera/contracts/workspaces'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkInviteEmail } from '../../forms/validation.ts'
import { inviteRoles, roleLabels } from '../roles.ts'

/** Invites someone by email, as a member or an admin. */
export function InviteForm({
  workspaceId,
  onSent,
}: {
  workspaceId: string
  onSent: () => Promise<void>
}) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const headingId = useId()
  const roleId = useId()
  const [sent, setSent] = useState<string | null>(null)

  const form = useForm({
    fields: { email: { validate: checkInviteEmail }, role: { initial: 'member' } },
    submit: async ({ email, role }) => {
      setSent(null)
      const answer = await api.invite(workspaceId, {
        email: email.trim(),
        role: role as InviteRole,
      })
      form.reset({ email: '' })
      // Stored either way; when the email did not go out the sentence says to resend it.
      setSent(answer.message)
      platform.notify({ kind: answer.emailSent ? 'success' : 'info', message: answer.message })
      await onSent()
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
      <h3 id={headingId}>Invite someone</h3>
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
      <div className="invite-form__fields">
        <Field
          label="Email address"
          type="email"
          autoComplete="off"
          spellCheck={false}
          autoCapitalize="off"
          value={form.values.email}
          onValue={(value) => form.setValue('email', value)}
          onLeave={() => form.blur('email')}
          error={form.errors.email}
          hint="They get an email with a link that works for 7 days, for this address only."
          required
        />
        <div className="field">
          <label className="field__label" htmlFor={roleId}>
            Role
          </label>
          <select
            id={roleId}
            className="select field__input"
            value={form.values.role}
            onChange={(event) => form.setValue('role', event.target.value)}
          >
            {inviteRoles.map((role) => (
              <option key={role} value={role}>
                {roleLabels[role]}
              </option>
            ))}
          </select>
        </div>
      </div>
      <SubmitButton
        pending={form.pending}
        cooldown={form.cooldown}
        label="Send invite"
        pendingLabel="Sending…"
      />
      <p role="status" className="invite-form__sent">
        {sent}
      </p>
    </form>
  )
}
