import { deferred } from '@tessera/plugin-react/deferred'
import { Progress } from '@tessera/plugin-react/page'
import { useRoute } from '@tessera/plugin-react/platform'
import { assistantRoutes } from '../../../lib/paths.ts'
import { TeamUsagePage } from '../../team-usage/components/team-usage-page.tsx'
import AssistantPage from './assistant-page.tsx'

// The list of shared links is rarely opened: its code loads when it is (the first route's budget).
const SharesPage = deferred(() =>
  import('../../share/components/shares-page.tsx').then((module) => module.SharesPage),
)

/** The assistant's pages: the team usage page, or the conversations. */
export default function AssistantRoutes() {
  const route = useRoute()
  if (route.replace(/\/$/, '') === assistantRoutes.shares)
    return <SharesPage fallback={<Progress>Loading your shared links…</Progress>} />
  return route.replace(/\/$/, '') === assistantRoutes.teamUsage ? (
    <TeamUsagePage />
  ) : (
    <AssistantPage />
  )
}
