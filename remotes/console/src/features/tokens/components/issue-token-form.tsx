import { useId, useRef, useState } from 'react'
import type { FormEvent } from 'react'
import type { IssuedToken } from '@tessera/contracts/console'
import { issuesOf, asApiError } from '@tessera/plugin-react/api-error'
import { describeFailure, type Failure } from '../../../lib/failure.ts'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'

interface IssueTokenFormProps {
  /** Remotes to pick from (the registry's); the field accepts any name when empty. */
  remotes: string[]
  onIssued(issued: IssuedToken): void
}

/** Issue a deploy token for one remote, with a label that says who uses it (CI, a person). */
export function IssueTokenForm({ remotes, onIssued }: IssueTokenFormProps) {
  const api = useConsoleApi()
  const ids = { remote: useId(), label: useId(), labelHint: useId() }
  const alertRef = useRef<HTMLDivElement>(null)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    const remote = String(data.get('remote') ?? '').trim()
    const label = String(data.get('label') ?? '').trim()
    setBusy(true)
    setFailure(null)
    setFieldErrors({})
    try {
      const issued = await api.issueToken({ remote, label })
      form.reset()
      onIssued(issued)
    } catch (error) {
      const apiError = asApiError(error)
      const issues = apiError ? issuesOf(apiError) : []
      setFieldErrors(Object.fromEntries(issues.map((issue) => [issue.path, issue.message])))
      setFailure(describeFailure(error, 'No token was issued.'))
      requestAnimationFrame(() => alertRef.current?.focus())
    } finally {
      setBusy(false)
    }
  }

  return (
    <form
      className="card issue-form"
      onSubmit={(event) => void submit(event)}
      aria-labelledby="issue-title"
    >
      <h2 id="issue-title">Issue a token</h2>
      <div className="issue-form__fields">
        <div className="field">
          <label htmlFor={ids.remote}>Remote</label>
          {remotes.length > 0 ? (
            <select id={ids.remote} name="remote" className="input" required>
              {remotes.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={ids.remote}
              name="remote"
              className="input"
              required
              pattern="[a-z][a-z0-9\-]{1,31}"
              autoComplete="off"
            />
          )}
          {fieldErrors.remote && <p className="field__error">{fieldErrors.remote}</p>}
        </div>
        <div className="field">
          <label htmlFor={ids.label}>Label</label>
          <input
            id={ids.label}
            name="label"
            className="input"
            required
            maxLength={80}
            aria-describedby={ids.labelHint}
            aria-invalid={fieldErrors.label ? true : undefined}
            autoComplete="off"
          />
          <p id={ids.labelHint} className="field__hint">
            Who will use it, e.g. “billing CI”. The audit log names the token by it.
          </p>
          {fieldErrors.label && <p className="field__error">{fieldErrors.label}</p>}
        </div>
      </div>
      {failure && <FailureAlert failure={failure} alertRef={alertRef} />}
      <div className="actions">
        <button type="submit" className="button button--primary" aria-busy={busy} disabled={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          Issue token
        </button>
      </div>
    </form>
  )
}
