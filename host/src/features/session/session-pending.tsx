/** What a guarded page shows while the session is read or the visitor is sent to sign in. */
export function SessionPending() {
  return (
    <div className="host-loading" role="status">
      <span className="host-spinner" aria-hidden="true" />
      <span>Checking your session…</span>
    </div>
  )
}
