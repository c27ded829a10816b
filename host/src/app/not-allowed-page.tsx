import type { MouseEvent } from 'react'
import { isPlainLeftClick } from '../lib/router/links.ts'

interface NotAllowedPageProps {
  homePath: string | null
  onNavigate(to: string): void
}

/**
 * Shown inside the frame for a path under a remote this user may not open (the snapshot's
 * `restricted`): the remote exists, so "not found" would mislead, and its files are never fetched.
 */
export function NotAllowedPage({ homePath, onNavigate }: NotAllowedPageProps) {
  const home = homePath ?? '/'
  const goHome = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainLeftClick(event)) return
    event.preventDefault()
    onNavigate(home)
  }
  return (
    <section className="host-page-message" aria-labelledby="host-not-allowed-title">
      <p className="host-page-message__eyebrow">403</p>
      <h1 className="host-page-message__title" id="host-not-allowed-title">
        Not allowed
      </h1>
      <p className="host-page-message__body">
        This page is for Tessera&apos;s operators only. If you need it, ask an operator to grant you
        the role, then sign in again.
      </p>
      <a className="host-button host-button--primary" href={home} onClick={goHome}>
        Go to the start page
      </a>
    </section>
  )
}
