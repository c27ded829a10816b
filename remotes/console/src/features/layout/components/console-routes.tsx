import { useState } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
import { useRoute } from '@tessera/plugin-react/platform'
import { consolePaths, remoteOfRoute } from '../../../lib/paths.ts'
import { AuditPage } from '../../audit/components/audit-page.tsx'
import { HealthPage } from '../../health/components/health-page.tsx'
import { OperatorsPage } from '../../operators/components/operators-page.tsx'
import { RemotesPage } from '../../remotes/components/remotes-page.tsx'
import { TokensPage } from '../../tokens/components/tokens-page.tsx'
import { VersionsPage } from '../../versions/components/versions-page.tsx'
import { ConsolePage, HeadingFocusContext } from './console-page.tsx'
import '../console.css'
import '../pages.css'
import '../tables.css'
import '../dialog.css'
import '../console-small-screens.css'

function NotFound() {
  return (
    <ConsolePage title="Page not found" intro="There is no console page at this address.">
      <p>
        <AppLink to={consolePaths.remotes}>Go to the remotes</AppLink>
      </p>
    </ConsolePage>
  )
}

function pageOf(route: string) {
  if (route === '/') return <RemotesPage />
  if (route === '/audit') return <AuditPage />
  if (route === '/tokens') return <TokensPage />
  if (route === '/operators') return <OperatorsPage />
  if (route === '/health') return <HealthPage />
  const remote = remoteOfRoute(route)
  if (remote !== null) return <VersionsPage name={remote} />
  return <NotFound />
}

/** Every page under `/console`, chosen by the sub-route the platform reports. */
export default function ConsoleRoutes() {
  const route = useRoute()
  // Focus moves to each page's heading after the first in-app move, not on the first page shown
  // (state adjusted during render, React's pattern for "changed since last render").
  const [focus, setFocus] = useState({ firstRoute: route, moved: false })
  if (!focus.moved && route !== focus.firstRoute) setFocus({ firstRoute: route, moved: true })
  return (
    <HeadingFocusContext value={focus.moved || route !== focus.firstRoute}>
      <div className="console-pages" key={route}>
        {pageOf(route)}
      </div>
    </HeadingFocusContext>
  )
}
