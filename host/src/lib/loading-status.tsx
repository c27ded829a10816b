import type { ReactNode } from 'react'

/** The host's "something is on its way" line: a spinner and what is awaited, announced politely. */
export function LoadingStatus({ children }: { children: ReactNode }) {
  return (
    <div className="host-loading" role="status">
      <span className="host-spinner" aria-hidden="true" />
      <span>{children}</span>
    </div>
  )
}
