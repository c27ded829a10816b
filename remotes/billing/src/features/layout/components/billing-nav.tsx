import { AppLink } from '@tessera/plugin-react/app-link'
import { useRoute } from '@tessera/plugin-react/platform'
import { billingPaths } from '../../../lib/paths.ts'

const pages = [
  { to: billingPaths.overview, route: '/', label: 'Overview' },
  { to: billingPaths.plans, route: '/plans', label: 'Plans' },
]

/** Tabs between the billing pages. */
export function BillingNav() {
  const route = useRoute()
  return (
    <nav className="billing-nav" aria-label="Billing">
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
