import { defineReactPlugin } from '@tessera/plugin-react/define-react-plugin'
import '@tessera/plugin-react/base.css'

// The pages load on first visit only. The console has no slot: nothing of it runs on other pages,
// and its descriptor's audience keeps it out of every non-operator's snapshot altogether.
export default defineReactPlugin({
  name: 'console',
  routes: () => import('./features/layout/components/console-routes.tsx'),
  loading: 'Loading the console…',
})
