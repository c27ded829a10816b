import { useState } from 'react'
import '../update-notice.css'

/** "Billing", "Billing and Assistant", "Auth, Billing and Assistant". */
function listOf(names: readonly string[]): string {
  if (names.length <= 1) return names.join('')
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
}

interface UpdateNoticeViewProps {
  /** The changed remotes, as the navigation names them. */
  remotes: readonly string[]
  reload(): void
}

/**
 * Says that a remote this page loaded has been updated (promoted or rolled back), and offers a
 * reload; "Later" hides it until something else changes. The page keeps working meanwhile.
 */
export function UpdateNoticeView({ remotes, reload }: UpdateNoticeViewProps) {
  const [hidden, setHidden] = useState<string | null>(null)
  const [reloading, setReloading] = useState(false)
  const key = remotes.join('\n')
  if (remotes.length === 0 || hidden === key) return null
  return (
    <aside className="host-update" aria-label="Updates">
      <div className="host-update__inner">
        <p className="host-update__text" role="status">
          <strong>{listOf(remotes)}</strong> {remotes.length === 1 ? 'has' : 'have'} been updated
          since this page opened. Reload to use the new version; what you have open keeps working
          until then.
        </p>
        <div className="host-update__actions">
          <button
            type="button"
            className="host-button host-button--primary host-button--quiet"
            disabled={reloading}
            aria-busy={reloading}
            onClick={() => {
              setReloading(true)
              reload()
            }}
          >
            {reloading ? 'Reloading…' : 'Reload'}
          </button>
          <button
            type="button"
            className="host-button host-button--quiet"
            onClick={() => setHidden(key)}
          >
            Later
          </button>
        </div>
      </div>
    </aside>
  )
}
