import { describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { buildHostCsp, inlineScriptHashes, remoteOrigins } from './csp.ts'
import { remoteEntry } from '../testing/app.ts'

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((part) => {
      const [name = '', ...sources] = part.trim().split(/\s+/)
      return [name, sources]
    }),
  )
}

describe('remoteOrigins', () => {
  it('lists each origin of the entries and previous versions once, sorted', () => {
    const origins = remoteOrigins({
      remotes: [
        remoteEntry({
          name: 'billing',
          entryUrl: 'https://cdn.example.com/billing/2.0.0/assets/remoteEntry.js',
        }),
        remoteEntry({
          name: 'auth',
          basePath: '/auth',
          entryUrl: 'https://cdn.example.com/auth/1.0.0/assets/remoteEntry.js',
          previous: {
            version: '0.9.0',
            entryUrl: 'https://old-cdn.example.com:8443/auth/0.9.0/e.js',
          },
        }),
      ],
    })
    expect(origins).toEqual(['https://cdn.example.com', 'https://old-cdn.example.com:8443'])
  })

  it('leaves out entry URLs that are not http(s)', () => {
    expect(
      remoteOrigins({ remotes: [remoteEntry({ entryUrl: 'data:text/javascript,1' })] }),
    ).toEqual([])
  })
})

describe('buildHostCsp', () => {
  it('sends violation reports to the BFF, in both reporting formats', () => {
    const policy = directives(buildHostCsp([]))
    expect(policy.get('report-uri')).toEqual(['/api/csp-reports'])
    expect(policy.get('report-to')).toEqual(['csp-endpoint'])
  })

  it('allows scripts, styles, connections and fonts from the remotes’ origins', () => {
    const policy = directives(buildHostCsp(['http://localhost:8788', 'https://cdn.example.com']))
    expect(policy.get('script-src')).toEqual([
      "'self'",
      'http://localhost:8788',
      'https://cdn.example.com',
    ])
    expect(policy.get('style-src')).toEqual([
      "'self'",
      "'unsafe-inline'",
      'http://localhost:8788',
      'https://cdn.example.com',
    ])
    expect(policy.get('connect-src')).toEqual([
      "'self'",
      'http://localhost:8788',
      'https://cdn.example.com',
    ])
    expect(policy.get('font-src')).toEqual([
      "'self'",
      'http://localhost:8788',
      'https://cdn.example.com',
    ])
  })

  it('keeps everything else to the page’s own origin and refuses framing, plugins and base changes', () => {
    const policy = directives(buildHostCsp(['http://localhost:8788']))
    expect(policy.get('default-src')).toEqual(["'self'"])
    expect(policy.get('img-src')).toEqual(["'self'", 'data:'])
    expect(policy.get('frame-ancestors')).toEqual(["'none'"])
    expect(policy.get('base-uri')).toEqual(["'self'"])
    expect(policy.get('object-src')).toEqual(["'none'"])
  })

  it('allows only the page’s own scripts when no remote is registered', () => {
    expect(directives(buildHostCsp([])).get('script-src')).toEqual(["'self'"])
  })

  it('allows the page’s own inline scripts by their hashes, and no other inline script', async () => {
    const theme = "\n  try { document.documentElement.dataset.theme = 'dark' } catch {}\n"
    const html = `<head><script>${theme}</script><script type="module" src="/a.js"></script><script src="/b.js" defer></script></head>`
    const hashes = await inlineScriptHashes(html)
    // The browser's hash: SHA-256 of the exact text between the tags, in base64.
    expect(hashes).toEqual([`sha256-${createHash('sha256').update(theme).digest('base64')}`])
    expect(directives(buildHostCsp(['https://cdn.example.com'], hashes)).get('script-src')).toEqual(
      ["'self'", `'${hashes[0]}'`, 'https://cdn.example.com'],
    )
  })
})
