interface BootErrorPageProps {
  message: string
  code: string | null
  retrying: boolean
  onRetry(): void
}

/** Full-page error when the registry snapshot cannot be had: without it there is nothing to show. */
export function BootErrorPage({ message, code, retrying, onRetry }: BootErrorPageProps) {
  return (
    <main className="host-boot-error" id="host-main" tabIndex={-1}>
      <div className="host-boot-error__card" role="alert">
        <p className="host-brand host-brand--large" aria-hidden="true">
          <span className="host-brand__mark" />
          Tessera
        </p>
        <h1 className="host-boot-error__title">Tessera could not start</h1>
        <p className="host-boot-error__body">
          {message} We could not load the list of apps, so there is nothing to show yet.
        </p>
        {code && (
          <p className="host-boot-error__code">
            Error code: <code>{code}</code>
          </p>
        )}
        <button
          type="button"
          className="host-button host-button--primary"
          onClick={onRetry}
          disabled={retrying}
        >
          {retrying ? 'Trying again…' : 'Try again'}
        </button>
      </div>
    </main>
  )
}
