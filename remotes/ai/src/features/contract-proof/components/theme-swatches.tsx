import { useId, useLayoutEffect, useRef, useState } from 'react'
import type { CSSProperties } from 'react'
import type { ThemeToken } from '@tessera/contracts/platform'
import { usePlatform, useTheme } from '@tessera/plugin-react/platform'

/** A visual sample of one token, drawn with the token itself so it shows what is applied. */
function sampleStyle(token: ThemeToken): { className: string; style: CSSProperties } {
  const value = `var(${token})`
  if (token.startsWith('--tessera-color-')) {
    return { className: 'swatch swatch--color', style: { background: value } }
  }
  if (token.startsWith('--tessera-font-')) {
    return { className: 'swatch swatch--font', style: { fontFamily: value } }
  }
  if (token === '--tessera-radius') {
    return { className: 'swatch swatch--radius', style: { borderRadius: value } }
  }
  return { className: 'swatch swatch--space', style: { width: value } }
}

/** Lists every theme token with a sample and the value the browser computed for this element. */
export function ThemeSwatches() {
  const platform = usePlatform()
  const theme = useTheme()
  const headingId = useId()
  const tableRef = useRef<HTMLTableElement>(null)
  const [computed, setComputed] = useState<Partial<Record<ThemeToken, string>>>({})

  // Read after the theme changes: the host sets the tokens on the document, the table inherits.
  useLayoutEffect(() => {
    const table = tableRef.current
    if (table === null) return
    const style = getComputedStyle(table)
    setComputed(
      Object.fromEntries(
        platform.theme.tokens.map((token) => [token, style.getPropertyValue(token).trim()]),
      ),
    )
  }, [platform, theme])

  return (
    <section className="card card--wide" aria-labelledby={headingId}>
      <h2 id={headingId}>Theme tokens</h2>
      <p>
        Current theme: <strong>{theme}</strong>
      </p>
      <table ref={tableRef} className="token-table">
        <caption className="visually-hidden">Theme tokens as applied to this page</caption>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Sample</th>
            <th scope="col">Computed value</th>
          </tr>
        </thead>
        <tbody>
          {platform.theme.tokens.map((token) => {
            const sample = sampleStyle(token)
            const value = computed[token]
            return (
              <tr key={token}>
                <th scope="row">
                  <code>{token}</code>
                </th>
                <td>
                  <span className={sample.className} style={sample.style} aria-hidden="true">
                    {token.startsWith('--tessera-font-') ? 'Aa' : null}
                  </span>
                </td>
                <td>{value ? <code>{value}</code> : <span className="muted">not set</span>}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </section>
  )
}
