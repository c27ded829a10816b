import { useId } from 'react'
import type { RemoteFailure } from './loader.ts'

/** What went wrong, in the words a visitor can act on. */
export function describeFailure(
  label: string,
  failure: RemoteFailure,
): { title: string; body: string } {
  if (failure.reason === 'contract' && failure.sentence) {
    return { title: `${label} needs an update`, body: failure.sentence }
  }
  const cause = {
    timeout: `${label}’s server did not answer in time.`,
    unreachable: `${label}’s server could not be reached.`,
    invalid: `${label} sent code that is not a working Tessera plugin.`,
    crashed: `${label} stopped with an error while it was starting.`,
    contract: `${label} was built for another version of the platform.`,
  }[failure.reason]
  const tried =
    failure.stage === 'mount'
      ? ''
      : failure.triedPrevious
        ? ' We tried again, and tried its previous version too.'
        : ' We tried again.'
  return {
    title: `${label} is unavailable right now`,
    body: `${cause}${tried} The rest of Tessera keeps working.`,
  }
}

interface FallbackCardProps {
  label: string
  version: string
  failure: RemoteFailure
  onRetry: () => void
}

/** Shown in place of a remote's page when it could not be loaded or mounted. */
export function FallbackCard({ label, version, failure, onRetry }: FallbackCardProps) {
  const { title, body } = describeFailure(label, failure)
  const titleId = useId()
  return (
    <section className="host-fallback" aria-labelledby={titleId}>
      <div className="host-fallback__icon" aria-hidden="true">
        <svg
          viewBox="0 0 24 24"
          width="24"
          height="24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
        >
          <path d="M12 9v4m0 4h.01M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0Z" />
        </svg>
      </div>
      <h1 className="host-fallback__title" id={titleId}>
        {title}
      </h1>
      <p className="host-fallback__body">{body}</p>
      <div className="host-fallback__actions">
        <button type="button" className="host-button host-button--primary" onClick={onRetry}>
          Try again
        </button>
      </div>
      <details className="host-fallback__details">
        <summary>Technical details</summary>
        <dl>
          <dt>Version</dt>
          <dd>{version}</dd>
          <dt>Stage</dt>
          <dd>{failure.stage}</dd>
          {failure.sentence === null && (
            <>
              <dt>Error</dt>
              <dd>
                <code>{failure.message}</code>
              </dd>
            </>
          )}
        </dl>
      </details>
    </section>
  )
}
