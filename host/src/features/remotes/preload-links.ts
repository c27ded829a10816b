/**
 * Asks the browser to fetch a remote's files now, alongside its entry, instead of discovering
 * them one import after another (entry → exposed module → its chunks). The list comes from the
 * remote's build (`preload` in the snapshot); only files on the entry's origin are taken, so a
 * registry entry cannot make the page fetch from anywhere else. Returns how many links it added.
 */
export function preloadRemoteFiles(
  doc: Document,
  entryUrl: string,
  urls: readonly string[],
  stylesheets: 'plain' | 'cors' = 'plain',
): number {
  const origin = new URL(entryUrl).origin
  const present = new Set(
    [
      ...doc.head.querySelectorAll<HTMLLinkElement>(
        'link[rel="modulepreload"], link[rel="preload"]',
      ),
    ].map((link) => link.href),
  )
  let added = 0
  for (const raw of urls) {
    // A malformed hint is skipped (the snapshot schema refuses them anyway): the remote still
    // loads without it.
    if (!URL.canParse(raw)) continue
    const url = new URL(raw)
    if (url.origin !== origin || present.has(url.href)) continue
    const link = doc.createElement('link')
    if (url.pathname.endsWith('.js')) {
      // Module scripts are fetched in CORS mode; `crossorigin` makes the preload match the
      // request the import makes, so the browser reuses it instead of fetching twice.
      link.rel = 'modulepreload'
      link.crossOrigin = 'anonymous'
    } else if (url.pathname.endsWith('.css')) {
      // In the mode of the code that adds the stylesheet, or the preload is not reused: originjs
      // adds the exposed module's as a plain <link rel="stylesheet">, Vite's preload helper a
      // route chunk's with crossorigin="".
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
export function prefetchRemote(
  doc: Document,
  remote: { entryUrl: string; preload?: readonly string[]; routePreload?: readonly string[] },
): number {
  return (
    preloadRemoteFiles(doc, remote.entryUrl, [remote.entryUrl, ...(remote.preload ?? [])]) +
    preloadRemoteFiles(doc, remote.entryUrl, remote.routePreload ?? [], 'cors')
  )
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
export function takeUpStylesheetHints(
  doc: Document,
  remote: { entryUrl: string; preload?: readonly string[]; routePreload?: readonly string[] },
): number {
  const origin = new URL(remote.entryUrl).origin
  let made = 0
  const takeUp = (urls: readonly string[], cors: boolean) => {
    for (const raw of urls) {
      if (!URL.canParse(raw)) continue
      const url = new URL(raw)
      if (url.origin !== origin || !url.pathname.endsWith('.css')) continue
      const link = doc.createElement('link')
      link.rel = 'stylesheet'
      if (cors) link.crossOrigin = 'anonymous'
      link.href = url.href
      const settle = () => link.remove()
      link.addEventListener('load', settle, { once: true })
      link.addEventListener('error', settle, { once: true })
      doc.head.append(link)
      made += 1
    }
  }
  // The modes of preloadRemoteFiles: originjs's plain links, Vite's preload helper's CORS ones.
  takeUp(remote.preload ?? [], false)
  takeUp(remote.routePreload ?? [], true)
  return made
}
