import { defineReactPlugin } from '@tessera/plugin-react/define-react-plugin'
import { UserMenu } from './features/user-menu/components/user-menu.tsx'
import '@tessera/plugin-react/base.css'

// The pages load on first visit only: the user menu, shown on every page, stays small.
export default defineReactPlugin({
  name: 'auth',
  routes: () => import('./features/account/components/auth-routes.tsx'),
  loading: 'Loading your account…',
  slots: { 'header.end': UserMenu },
})
