import { lazy, Suspense } from 'react'
import { CONTRACT_MAJOR, definePlugin } from '@tessera/contracts/plugin'
import { mountReact } from '@tessera/plugin-react/mount-react'
import { BillingHeader } from './features/header/components/billing-header.tsx'
import { withAnnouncedNavigation } from '@tessera/plugin-react/use-search'
import './styles/base.css'

// The pages load on first visit only: the header slot, shown on every page, stays small.
const BillingRoutes = lazy(() => import('./features/layout/components/billing-routes.tsx'))

export default definePlugin({
  name: 'billing',
  contract: CONTRACT_MAJOR,
  routes: {
    mount: (el, platform) =>
      mountReact(
        el,
        withAnnouncedNavigation(platform),
        <Suspense
          fallback={
            <p className="page-loading" role="status">
              Loading billing…
            </p>
          }
        >
          <BillingRoutes />
        </Suspense>,
      ),
  },
  slots: {
    'header.end': (el, platform) =>
      mountReact(el, withAnnouncedNavigation(platform), <BillingHeader />),
  },
})
