import type { MouseEvent } from 'react'
import { isPlainLeftClick } from '../lib/router/links.ts'

interface NotFoundPageProps {
  pathname: string
  homePath: string | null
  onNavigate(to: string): void
}

/** Shown inside the frame for a path that no remote owns. */
export function NotFoundPage({ pathname, homePath, onNavigate }: NotFoundPageProps) {
  const goHome = (event: MouseEvent<HTMLAnchorElement>) => {
    if (!isPlainLeftClick(event)) return
    event.preventDefault()
    onNavigate(homePath ?? '/')
  }
  return (
    <section className="host-page-message" aria-labelledby="host-not-found-title">
      <p className="host-page-message__eyebrow">404</p>
      <h1 className="host-page-message__title" id="host-not-found-title">
        Page not found
      </h1>
      <p className="host-page-message__body">
        There is nothing at <code>{pathname}</code>. Check the address, or pick a section from the
        navigation.
      </p>
      {homePath && (
        <a className="host-button host-button--primary" href={homePath} onClick={goHome}>
          Go to the start page
        </a>
      )}
    </section>
  )
}
