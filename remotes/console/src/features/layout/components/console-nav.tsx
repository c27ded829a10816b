import { TabNav, type Tab } from '@tessera/plugin-react/tab-nav'
import { consolePaths } from '../../../lib/paths.ts'

const tabs: Tab[] = [
  { to: consolePaths.remotes, route: '/', label: 'Remotes' },
  { to: consolePaths.audit, route: '/audit', label: 'Audit log' },
  { to: consolePaths.tokens, route: '/tokens', label: 'Deploy tokens' },
  { to: consolePaths.operators, route: '/operators', label: 'Operators' },
  { to: consolePaths.health, route: '/health', label: 'Health' },
]

/** Tabs between the console's pages. */
export function ConsoleNav() {
  return <TabNav tabs={tabs} label="Console" className="console-nav" />
}
