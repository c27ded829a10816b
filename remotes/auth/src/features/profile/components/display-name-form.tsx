import { useId } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkDisplayName } from '../../forms/validation.ts'

/** The display name shown in the header and to other people. */
export function DisplayNameForm({ current }: { current: string | null }) {
  const platform = usePlatform()
  const api = useAuthApi()
  const headingId = useId()

  const form = useForm({
    fields: { displayName: { initial: current ?? '', validate: checkDisplayName } },
    submit: async ({ displayName }) => {
      const body = await api.updateProfile({ displayName })
      form.reset({ displayName: body.profile.displayName ?? '' })
      platform.notify({ kind: 'success', message: 'Your display name is saved.' })
      // The header shows the name; the BFF also tells every other tab (USER_UPDATED).
      await platform.session.refresh()
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
      <h2 id={headingId}>Your name</h2>
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
      <Field
        label="Display name"
        autoComplete="name"
        value={form.values.displayName}
        onValue={(value) => form.setValue('displayName', value)}
        onLeave={() => form.blur('displayName')}
        error={form.errors.displayName}
        hint="Shown in the header and wherever Tessera names you."
        required
      />
      <SubmitButton
        pending={form.pending}
        cooldown={form.cooldown}
        label="Save name"
        pendingLabel="Saving…"
      />
    </form>
  )
}
