import { CSP_REPORT_GROUP, CSP_REPORT_PATH } from '@tessera/contracts'
import type { RegistrySnapshot } from '@tessera/contracts'

/**
 * The origins the host page loads remote code from: every remote's entry and its previous good
 * version (the host's fallback), deduplicated and sorted so the header is stable.
 */
export function remoteOrigins(snapshot: Pick<RegistrySnapshot, 'remotes'>): string[] {
  const origins = new Set<string>()
  for (const remote of snapshot.remotes) {
    for (const url of [remote.entryUrl, remote.previous?.entryUrl]) {
      if (url === undefined) continue
      const { protocol, origin } = new URL(url)
      // Only http(s) origins can be named in a source list; anything else is left out.
      if (protocol === 'http:' || protocol === 'https:') origins.add(origin)
    }
  }
  return [...origins].sort()
}

/**
 * The Content-Security-Policy of the host page, allowing the remotes' origins and, by their hashes
 * (`inlineScriptHashes`), the page's own inline scripts and no other.
 */
export function buildHostCsp(
  origins: readonly string[],
  inlineScriptHashes: readonly string[] = [],
): string {
  const withRemotes = (...sources: string[]): string => [...sources, ...origins].join(' ')
  const directives: [string, string][] = [
    ['default-src', "'self'"],
    ['script-src', withRemotes("'self'", ...inlineScriptHashes.map((hash) => `'${hash}'`))],
    // originjs injects the remotes' CSS as <link> elements, and React sets inline styles.
    ['style-src', withRemotes("'self'", "'unsafe-inline'")],
    ['connect-src', withRemotes("'self'")],
    ['img-src', "'self' data:"],
    ['font-src', withRemotes("'self'")],
    ['frame-ancestors', "'none'"],
    ['base-uri', "'self'"],
    ['object-src', "'none'"],
    // Violations are logged by the BFF: report-to for browsers with the Reporting API (the
    // Reporting-Endpoints header names the group), report-uri for the others.
    ['report-uri', CSP_REPORT_PATH],
    ['report-to', CSP_REPORT_GROUP],
  ]
  return directives.map(([name, value]) => `${name} ${value}`).join('; ')
}

/**
 * The CSP sources (`sha256-…`) of a page's inline scripts (those without `src`), as the browser
 * hashes them: the exact text between the tags.
 */
export async function inlineScriptHashes(html: string): Promise<string[]> {
  const hashes: string[] = []
  for (const match of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(match[1]))
    hashes.push(`sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}`)
  }
  return hashes
}
