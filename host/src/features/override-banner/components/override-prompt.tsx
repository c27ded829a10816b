import { useState } from 'react'
import { ApiError } from '@tessera/contracts'
import { originOf, type OverrideRequest } from '../override-link.ts'
import { OverrideIcon } from './override-icon.tsx'

interface OverridePromptProps {
  request: OverrideRequest
  /** Sets the override (the page reloads after); throws the BFF's refusal. */
  onAccept(): Promise<void>
  /** Leaves everything as it is and forgets the link's request. */
  onDismiss(): void
}

/**
 * The question a preview link asks before anything changes: which remote, loaded from where,
 * for this browser only. A refusal (an origin this server does not allow) is shown as the BFF
 * says it.
 */
export function OverridePrompt({ request, onAccept, onDismiss }: OverridePromptProps) {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const accept = async () => {
    setBusy(true)
    setError(null)
    try {
      await onAccept()
    } catch (failure) {
      setBusy(false)
      setError(
        failure instanceof ApiError
          ? failure.message
          : 'The server could not be reached. Check your connection and try again.',
      )
    }
  }

  return (
    <section className="host-override host-override--prompt" aria-label="Load a preview?">
      <div className="host-override__item">
        <OverrideIcon />
        <p className="host-override__text">
          This link loads <strong>{request.remote}</strong> from{' '}
          <code className="host-override__origin">{originOf(request.entryUrl)}</code>
          {request.label ? ` — ${request.label}` : ''}, in this browser only, until you stop it.
        </p>
        <div className="host-override__actions">
          <button
            type="button"
            className="host-button host-button--primary host-override__button"
            onClick={() => void accept()}
            disabled={busy}
            aria-busy={busy}
          >
            {busy ? 'Loading…' : `Load ${request.remote}`}
          </button>
          <button
            type="button"
            className="host-button host-override__button"
            onClick={onDismiss}
            disabled={busy}
          >
            Not now
          </button>
        </div>
      </div>
      {error && (
        <p className="host-override__error" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}
