import type { Router } from './router.ts'

interface ClickLike {
  button: number
  metaKey: boolean
  ctrlKey: boolean
  shiftKey: boolean
  altKey: boolean
}

/** Whether a click should become an in-app navigation rather than a new tab, download or such. */
export function isPlainLeftClick(event: ClickLike): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey
}

/**
 * Turns plain clicks on same-origin links inside plugin elements into in-app navigations, so a
 * plugin's ordinary `<a href="/billing/plans">` does not reload the page (and every remote with it).
 * Links a plugin handles itself (`preventDefault`) and links to the API are left alone.
 */
export function interceptPluginLinks(doc: Document, router: Router): () => void {
  const onClick = (event: MouseEvent): void => {
    if (event.defaultPrevented || !isPlainLeftClick(event)) return
    const start = event.target instanceof Element ? event.target : null
    const anchor = start?.closest('a[href]')
    if (!(anchor instanceof HTMLAnchorElement) || !anchor.closest('[data-tessera-remote]')) return
    if ((anchor.target && anchor.target !== '_self') || anchor.hasAttribute('download')) return
    const url = new URL(anchor.href, doc.baseURI)
    if (url.origin !== doc.location.origin || url.pathname.startsWith('/api/')) return
    // A link to a spot on the same page is the browser's job.
    if (
      url.pathname === doc.location.pathname &&
      url.search === doc.location.search &&
      url.hash !== ''
    )
      return
    event.preventDefault()
    router.navigate(`${url.pathname}${url.search}${url.hash}`)
  }
  doc.addEventListener('click', onClick)
  return () => doc.removeEventListener('click', onClick)
}
