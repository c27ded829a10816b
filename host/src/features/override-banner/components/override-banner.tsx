import { useState } from 'react'
import { ApiError, type SnapshotRemote } from '@tessera/contracts'
import { originOf } from '../override-link.ts'
import { OverrideIcon } from './override-icon.tsx'

interface OverrideBannerProps {
  remotes: readonly SnapshotRemote[]
  /** Ends this browser's override of one remote. */
  onStop(remote: string): Promise<void>
  /** Loads the page again, so the published version (and the page's policy for it) takes over. */
  reload(): void
}

/** Why a stop failed, as a sentence that says what to do. */
function stopFailure(remote: string, error: unknown): string {
  const why = error instanceof ApiError ? error.message : 'the server could not be reached.'
  return `The override of ${remote} is still on: ${why} Try again.`
}

/**
 * Says, on every page, which remotes this browser loads from somewhere other than the registry
 * (a dev server, a preview build), with a one-click way back to the published version.
 */
export function OverrideBanner({ remotes, onStop, reload }: OverrideBannerProps) {
  const [stopping, setStopping] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const overridden = remotes.filter((remote) => remote.override !== undefined)
  if (overridden.length === 0) return null

  const stop = async (remote: string) => {
    setStopping(remote)
    setError(null)
    try {
      await onStop(remote)
    } catch (failure) {
      setStopping(null)
      setError(stopFailure(remote, failure))
      return
    }
    // The button keeps saying "Stopping…" until the new page replaces this one.
    reload()
  }

  return (
    <section className="host-override" aria-label="Overrides in this browser">
      <ul className="host-override__list">
        {overridden.map((remote) => (
          <li key={remote.name} className="host-override__item">
            <OverrideIcon />
            <p className="host-override__text">
              <strong>{remote.name}</strong> is loaded from{' '}
              <code className="host-override__origin">{originOf(remote.entryUrl)}</code> —{' '}
              {remote.override?.label}
              <span className="host-override__scope"> (this browser only)</span>
            </p>
            <button
              type="button"
              className="host-button host-override__button"
              onClick={() => void stop(remote.name)}
              disabled={stopping !== null}
              aria-busy={stopping === remote.name}
            >
              {stopping === remote.name ? (
                'Stopping…'
              ) : (
                <>
                  Stop override<span className="host-visually-hidden"> of {remote.name}</span>
                </>
              )}
            </button>
          </li>
        ))}
      </ul>
      {error && (
        <p className="host-override__error" role="alert">
          {error}
        </p>
      )}
    </section>
  )
}
