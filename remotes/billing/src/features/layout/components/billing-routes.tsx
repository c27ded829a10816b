import { useState } from 'react'
import type { ReactNode } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
import { useRoute } from '@tessera/plugin-react/platform'
import { billingPaths } from '../../../lib/paths.ts'
import { CheckoutReturnPage } from '../../checkout-return/components/checkout-return-page.tsx'
import { OverviewPage } from '../../overview/components/overview-page.tsx'
import { PlansPage } from '../../plans/components/plans-page.tsx'
import { BillingPage, HeadingFocusContext } from './billing-page.tsx'
import '../billing-pages.css'
import '../plans.css'
import '../billing-small-screens.css'

const pages: Record<string, () => ReactNode> = {
  '/': () => <OverviewPage />,
  '/plans': () => <PlansPage />,
  '/return': () => <CheckoutReturnPage />,
}

function NotFound() {
  return (
    <BillingPage title="Page not found" intro="There is no billing page at this address.">
      <p>
        <AppLink to={billingPaths.overview}>Go to billing</AppLink>
      </p>
    </BillingPage>
  )
}

/** Every page under `/billing`, chosen by the sub-route the platform reports. */
export default function BillingRoutes() {
  const route = useRoute()
  // Focus moves to each page's heading after the first in-app move, not on the first page shown
  // (state adjusted during render, React's pattern for "changed since last render").
  const [focus, setFocus] = useState({ firstRoute: route, moved: false })
  if (!focus.moved && route !== focus.firstRoute) setFocus({ firstRoute: route, moved: true })
  const page = pages[route]?.() ?? <NotFound />
  return (
    <HeadingFocusContext value={focus.moved || route !== focus.firstRoute}>
      <div className="billing-pages" key={route}>
        {page}
      </div>
    </HeadingFocusContext>
  )
}
