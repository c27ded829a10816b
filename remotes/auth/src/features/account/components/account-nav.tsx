import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { useRoute } from '@tessera/plugin-react/platform'

const pages = [
  { to: authPaths.profile, route: '/profile', label: 'Profile' },
  { to: authPaths.sessions, route: '/sessions', label: 'Sessions' },
]

/** Tabs between the signed-in account pages. */
export function AccountNav() {
  const route = useRoute()
  return (
    <nav className="account-nav" aria-label="Account">
      <ul>
        {pages.map((page) => (
          <li key={page.to}>
            <AppLink to={page.to} aria-current={route === page.route ? 'page' : undefined}>
              {page.label}
            </AppLink>
          </li>
        ))}
      </ul>
    </nav>
  )
}
