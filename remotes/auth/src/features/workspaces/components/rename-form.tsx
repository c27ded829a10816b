import { useId } from 'react'
import type { WorkspaceSummary } from '@tessera/contracts/workspaces'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useWorkspacesApi } from '../../../lib/workspaces-api.ts'
import { Field } from '../../forms/components/field.tsx'
import { FormAlert } from '../../forms/components/form-alert.tsx'
import { SubmitButton } from '../../forms/components/submit-button.tsx'
import { useForm } from '../../forms/use-form.ts'
import { checkWorkspaceName } from '../../forms/validation.ts'

/** The workspace's name, for its owners and admins. */
export function RenameForm({
  workspace,
  onRenamed,
}: {
  workspace: WorkspaceSummary
  onRenamed: () => Promise<void>
}) {
  const platform = usePlatform()
  const api = useWorkspacesApi()
  const headingId = useId()
  const form = useForm({
    fields: { name: { initial: workspace.name, validate: checkWorkspaceName } },
    submit: async ({ name }) => {
      const answer = await api.rename(workspace.id, name.trim())
      form.reset({ name: answer.workspace.name })
      platform.notify({
        kind: 'success',
        message: `The workspace is now called ${answer.workspace.name}.`,
      })
      await onRenamed()
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
      <h2 id={headingId}>Name</h2>
      <FormAlert alert={form.alert} alertRef={form.alertRef} cooldown={form.cooldown} />
      <Field
        label="Workspace name"
        autoComplete="off"
        value={form.values.name}
        onValue={(value) => form.setValue('name', value)}
        onLeave={() => form.blur('name')}
        error={form.errors.name}
        hint="Every member sees it, in the header and on this page."
        required
      />
      <SubmitButton pending={form.pending} label="Save name" pendingLabel="Saving…" />
    </form>
  )
}
