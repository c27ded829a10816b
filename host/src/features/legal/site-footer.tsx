import { HostLink } from '../../lib/router/host-link.tsx'

interface SiteFooterProps {
  /** The current path, to mark the page the visitor is on. */
  pathname: string
  onNavigate(to: string): void
}

const links = [
  { to: '/terms', label: 'Terms' },
  { to: '/privacy', label: 'Privacy' },
] as const

/** The footer of the host's own pages (landing, terms, privacy): what the product is, and its terms. */
export function SiteFooter({ pathname, onNavigate }: SiteFooterProps) {
  return (
    <footer className="host-footer">
      <div className="host-footer__inner">
        <p className="host-footer__about">Tessera, an AI assistant with plans to fit your use.</p>
        <nav aria-label="Legal">
          <ul className="host-footer__links">
            {links.map((link) => (
              <li key={link.to}>
                <HostLink
                  className="host-footer__link"
                  to={link.to}
                  onNavigate={onNavigate}
                  aria-current={pathname === link.to ? 'page' : undefined}
                >
                  {link.label}
                </HostLink>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </footer>
  )
}
