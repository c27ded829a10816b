import type { AnchorHTMLAttributes } from 'react'
import { isPlainLeftClick } from './links.ts'

interface HostLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** An app path (`/auth/sign-up`); a plain click goes there without a page load. */
  to: string
  onNavigate(to: string): void
}

/**
 * A link of the host's own pages: a real `<a href>` (new tab, copy address and screen readers
 * work as on any link), handed to the router on a plain left click.
 */
export function HostLink({ to, onNavigate, onClick, children, ...rest }: HostLinkProps) {
  return (
    <a
      {...rest}
      href={to}
      onClick={(event) => {
        onClick?.(event)
        if (event.defaultPrevented || !isPlainLeftClick(event)) return
        event.preventDefault()
        onNavigate(to)
      }}
    >
      {children}
    </a>
  )
}
