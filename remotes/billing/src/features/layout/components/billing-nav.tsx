import { TabNav, type Tab } from '@tessera/plugin-react/tab-nav'
import { billingPaths } from '../../../lib/paths.ts'

const tabs: Tab[] = [
  { to: billingPaths.overview, route: '/', label: 'Overview' },
  { to: billingPaths.plans, route: '/plans', label: 'Plans' },
]

/** Tabs between the billing pages. */
export function BillingNav() {
  return <TabNav tabs={tabs} label="Billing" className="billing-nav" />
}
