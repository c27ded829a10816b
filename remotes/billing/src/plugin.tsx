import { lazy, Suspense } from 'react'
import { CONTRACT_MAJOR, definePlugin } from '@tessera/contracts/plugin'
import { PlanBadge } from './features/plan-badge/components/plan-badge.tsx'
import { mountReact } from '@tessera/plugin-react/mount-react'
import './styles/base.css'

// The page loads on first visit only: the badge, shown on every page, stays small.
const ContractProofPage = lazy(
  () => import('./features/contract-proof/components/contract-proof-page.tsx'),
)

export default definePlugin({
  name: 'billing',
  contract: CONTRACT_MAJOR,
  routes: {
    mount: (el, platform) =>
      mountReact(
        el,
        platform,
        <Suspense fallback={<p className="page-loading">Loading billing…</p>}>
          <ContractProofPage />
        </Suspense>,
      ),
  },
  slots: {
    'header.end': (el, platform) => mountReact(el, platform, <PlanBadge />),
  },
})
