type StylesheetMode = 'plain' | 'cors'

/** A remote as the hints see it: its entry and the file lists of its build. */
interface HintedRemote {
  entryUrl: string
  preload?: readonly string[]
  routePreload?: readonly string[]
}

/**
 * The files of `urls` on the entry's origin, so a registry entry cannot make the page fetch from
 * anywhere else. A malformed one is skipped (the snapshot schema refuses them anyway): the remote
 * still loads without it.
 */
function onEntryOrigin(entryUrl: string, urls: readonly string[]): URL[] {
  const origin = new URL(entryUrl).origin
  return urls
    .filter((raw) => URL.canParse(raw))
    .map((raw) => new URL(raw))
    .filter((url) => url.origin === origin)
}

/**
 * A remote's file lists with the mode their stylesheets are asked for in: originjs adds the
 * exposed module's (`preload`) as a plain <link rel="stylesheet">, Vite's preload helper a route
 * chunk's (`routePreload`) with crossorigin="". A hint in another mode is not reused.
 */
const byStylesheetMode = (remote: HintedRemote): [readonly string[], StylesheetMode][] => [
  [remote.preload ?? [], 'plain'],
  [remote.routePreload ?? [], 'cors'],
]

/**
 * Asks the browser to fetch a remote's files now, alongside its entry, instead of discovering
 * them one import after another (entry → exposed module → its chunks). The list comes from the
 * remote's build (`preload` in the snapshot); only files on the entry's origin are taken.
 * Stylesheets are hinted in `stylesheets`' mode. Returns how many links it added.
 */
export function preloadRemoteFiles(
  doc: Document,
  entryUrl: string,
  urls: readonly string[],
  stylesheets: StylesheetMode = 'plain',
): number {
  const present = new Set(
    [
      ...doc.head.querySelectorAll<HTMLLinkElement>(
        'link[rel="modulepreload"], link[rel="preload"]',
      ),
    ].map((link) => link.href),
  )
  let added = 0
  for (const url of onEntryOrigin(entryUrl, urls)) {
    if (present.has(url.href)) continue
    const link = doc.createElement('link')
    if (url.pathname.endsWith('.js')) {
      // Module scripts are fetched in CORS mode; `crossorigin` makes the preload match the
      // request the import makes, so the browser reuses it instead of fetching twice.
      link.rel = 'modulepreload'
      link.crossOrigin = 'anonymous'
    } else if (url.pathname.endsWith('.css')) {
      link.rel = 'preload'
      link.as = 'style'
      if (stylesheets === 'cors') link.crossOrigin = 'anonymous'
    } else {
      continue
    }
    link.href = url.href
    doc.head.append(link)
    present.add(url.href)
    added += 1
  }
  return added
}

/**
 * Fetches a remote's entry, first files and its pages' lazy chunks ahead of a likely visit (the
 * pointer over its navigation link, or the link focused), so the click finds them in the cache. The same links as
 * `preloadRemoteFiles`, so loading the remote afterwards reuses them; a remote already hinted or
 * loaded adds nothing.
 */
export function prefetchRemote(doc: Document, remote: HintedRemote): number {
  let added = preloadRemoteFiles(doc, remote.entryUrl, [remote.entryUrl])
  for (const [urls, mode] of byStylesheetMode(remote))
    added += preloadRemoteFiles(doc, remote.entryUrl, urls, mode)
  return added
}

/**
 * Before a retry of a remote, takes up what its stylesheet hints left behind. Chromium keeps a
 * preload whose download failed and hands that failure to the next request for the file in the
 * same mode instead of fetching it again: after its origin is back, the remote would stay unstyled,
 * and a route whose stylesheet Vite's preload helper waits for would fail to load. One request in
 * each hint's mode (a stylesheet link, removed once it settles, so nothing is applied from it)
 * takes the kept preload, failed or not; the remote's own request then downloads the file anew or
 * finds it cached. Returns how many it made.
 */
export function takeUpStylesheetHints(doc: Document, remote: HintedRemote): number {
  let made = 0
  for (const [urls, mode] of byStylesheetMode(remote)) {
    for (const url of onEntryOrigin(remote.entryUrl, urls)) {
      if (!url.pathname.endsWith('.css')) continue
      const link = doc.createElement('link')
      link.rel = 'stylesheet'
      if (mode === 'cors') link.crossOrigin = 'anonymous'
      link.href = url.href
      const settle = () => link.remove()
      link.addEventListener('load', settle, { once: true })
      link.addEventListener('error', settle, { once: true })
      doc.head.append(link)
      made += 1
    }
  }
  return made
}
