import { LoadingStatus } from '../lib/loading-status.tsx'

/**
 * What the page shows until the registry snapshot is read: the header with the brand and a
 * status line. `index.html` carries the same markup in `#root` (a test keeps them equal), so the
 * first paint needs only the HTML and the stylesheet, and React's first render changes nothing
 * on screen.
 */
export function BootSkeleton() {
  return (
    <div className="host-frame" aria-busy="true">
      <header className="host-header">
        <div className="host-header__inner">
          <span className="host-brand">
            <span className="host-brand__mark" aria-hidden="true" />
            Tessera
          </span>
        </div>
      </header>
      <main className="host-main" id="host-main" tabIndex={-1}>
        <LoadingStatus>Starting Tessera…</LoadingStatus>
      </main>
    </div>
  )
}
