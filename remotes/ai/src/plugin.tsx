import { lazy, Suspense } from 'react'
import { CONTRACT_MAJOR, definePlugin } from '@tessera/contracts/plugin'
import { mountReact } from '@tessera/plugin-react/mount-react'
import { UsageBadge } from './features/usage/components/usage-badge.tsx'
import './styles/base.css'

// The page (and its Markdown renderer) loads on first visit only: the usage meter in the header,
// shown on every page, stays small.
const AssistantPage = lazy(() => import('./features/chat/components/assistant-page.tsx'))

export default definePlugin({
  name: 'ai',
  contract: CONTRACT_MAJOR,
  routes: {
    mount: (el, platform) =>
      mountReact(
        el,
        platform,
        <Suspense
          fallback={
            <p className="page-loading" role="status">
              Loading the assistant…
            </p>
          }
        >
          <AssistantPage />
        </Suspense>,
      ),
  },
  slots: {
    'header.end': (el, platform) => mountReact(el, platform, <UsageBadge />),
  },
})
