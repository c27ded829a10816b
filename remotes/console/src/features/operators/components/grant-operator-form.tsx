import { useId, useRef, useState } from 'react'
import type { FormEvent } from 'react'
import type { GrantedOperator } from '@tessera/contracts/console'
import { asApiError, issuesOf } from '@tessera/plugin-react/api-error'
import { describeFailure, type Failure } from '../../../lib/failure.ts'
import { useConsoleApi } from '../../../lib/use-console-api.ts'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'

/**
 * Grant the operator role to an account by its email, as `npm run operators -- grant <email>`
 * does (the same function on the BFF, audited with this operator as the actor).
 */
export function GrantOperatorForm({ onGranted }: { onGranted(granted: GrantedOperator): void }) {
  const api = useConsoleApi()
  const ids = { title: useId(), email: useId(), hint: useId(), error: useId() }
  const alertRef = useRef<HTMLDivElement>(null)
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<Failure | null>(null)
  const [emailError, setEmailError] = useState<string | null>(null)

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const email = String(new FormData(form).get('email') ?? '').trim()
    setBusy(true)
    setFailure(null)
    setEmailError(null)
    try {
      const granted = await api.grantOperator({ email })
      form.reset()
      onGranted(granted)
    } catch (error) {
      const apiError = asApiError(error)
      const issue = apiError ? issuesOf(apiError).find((each) => each.path === 'email') : undefined
      setEmailError(issue?.message ?? null)
      setFailure(describeFailure(error, 'Nobody was made an operator.'))
      requestAnimationFrame(() => alertRef.current?.focus())
    } finally {
      setBusy(false)
    }
  }

  return (
    <form
      className="card grant-form"
      onSubmit={(event) => void submit(event)}
      aria-labelledby={ids.title}
    >
      <h2 id={ids.title}>Grant the role</h2>
      <div className="grant-form__fields">
        <div className="field">
          <label htmlFor={ids.email}>Email of the account</label>
          <input
            id={ids.email}
            name="email"
            type="email"
            className="input"
            required
            maxLength={255}
            autoComplete="off"
            spellCheck={false}
            aria-describedby={emailError ? `${ids.hint} ${ids.error}` : ids.hint}
            aria-invalid={emailError ? true : undefined}
          />
          <p id={ids.hint} className="field__hint">
            The person must have signed up already. Their next request to the console is allowed;
            the console appears in their navigation on their next page load.
          </p>
          {emailError && (
            <p id={ids.error} className="field__error">
              {emailError}
            </p>
          )}
        </div>
      </div>
      {failure && <FailureAlert failure={failure} alertRef={alertRef} />}
      <div className="actions">
        <button type="submit" className="button button--primary" aria-busy={busy} disabled={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          Grant operator role
        </button>
      </div>
    </form>
  )
}
