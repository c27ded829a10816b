import { lazy, Suspense } from 'react'
import { CONTRACT_MAJOR, definePlugin } from '@tessera/contracts/plugin'
import { UserMenu } from './features/user-menu/components/user-menu.tsx'
import { mountReact } from '@tessera/plugin-react/mount-react'
import { withAnnouncedNavigation } from '@tessera/plugin-react/use-search'
import './styles/base.css'

// The pages load on first visit only: the user menu, shown on every page, stays small.
const AuthRoutes = lazy(() => import('./features/account/components/auth-routes.tsx'))

export default definePlugin({
  name: 'auth',
  contract: CONTRACT_MAJOR,
  routes: {
    mount: (el, platform) =>
      mountReact(
        el,
        withAnnouncedNavigation(platform),
        <Suspense
          fallback={
            <p className="page-loading" role="status">
              Loading your account…
            </p>
          }
        >
          <AuthRoutes />
        </Suspense>,
      ),
  },
  slots: {
    'header.end': (el, platform) => mountReact(el, withAnnouncedNavigation(platform), <UserMenu />),
  },
})
