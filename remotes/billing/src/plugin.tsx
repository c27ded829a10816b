import { defineReactPlugin } from '@tessera/plugin-react/define-react-plugin'
import { BillingHeader } from './features/header/components/billing-header.tsx'
import '@tessera/plugin-react/base.css'

// The pages load on first visit only: the header slot, shown on every page, stays small.
export default defineReactPlugin({
  name: 'billing',
  routes: () => import('./features/layout/components/billing-routes.tsx'),
  loading: 'Loading billing…',
  slots: { 'header.end': BillingHeader },
})
