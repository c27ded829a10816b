import { useEffect, useRef, useState } from 'react'
import type { IssuedToken as Issued } from '@tessera/contracts/console'

/**
 * The token just issued: shown this once, with a copy button and the warning that it cannot be
 * shown again. Focus moves here so a screen reader reads the warning.
 */
export function IssuedToken({ issued, onDismiss }: { issued: Issued; onDismiss(): void }) {
  const ref = useRef<HTMLDivElement>(null)
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  useEffect(() => ref.current?.focus(), [])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(issued.token)
      setCopied('yes')
    } catch (error) {
      // No clipboard (an insecure origin, a refused permission): the token is selectable text.
      console.warn('Could not copy the token', error)
      setCopied('failed')
    }
  }
  return (
    <div
      ref={ref}
      tabIndex={-1}
      className="card issued"
      role="region"
      aria-labelledby="issued-title"
    >
      <h2 id="issued-title">
        Token for {issued.info.remote} ({issued.info.label})
      </h2>
      <p className="issued__warning">
        <strong>Copy it now: it will not be shown again.</strong> Store it as the CI secret{' '}
        <code>TESSERA_DEPLOY_TOKEN</code>. If it is lost, revoke it and issue another.
      </p>
      <p className="issued__token">
        <code aria-label="Deploy token">{issued.token}</code>
      </p>
      <div className="actions">
        <button type="button" className="button button--primary" onClick={() => void copy()}>
          Copy token
        </button>
        <button type="button" className="button button--secondary" onClick={onDismiss}>
          I have stored it
        </button>
        <span role="status" className="issued__copied">
          {copied === 'yes' && 'Copied.'}
          {copied === 'failed' && 'Copying is not allowed here: select the token and copy it.'}
        </span>
      </div>
    </div>
  )
}
