import { LoadingStatus } from '../../lib/loading-status.tsx'

/** What a guarded page shows while the session is read or the visitor is sent to sign in. */
export function SessionPending() {
  return <LoadingStatus>Checking your session…</LoadingStatus>
}
