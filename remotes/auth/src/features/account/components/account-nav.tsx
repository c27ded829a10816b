import { TabNav, type Tab } from '@tessera/plugin-react/tab-nav'
import { authPaths } from '../../../lib/destinations.ts'

const tabs: Tab[] = [
  { to: authPaths.profile, route: '/profile', label: 'Profile' },
  { to: authPaths.sessions, route: '/sessions', label: 'Sessions' },
  { to: authPaths.workspaces, route: '/workspaces', label: 'Workspaces' },
]

/** Tabs between the signed-in account pages. */
export function AccountNav() {
  return <TabNav tabs={tabs} label="Account" className="account-nav" />
}
