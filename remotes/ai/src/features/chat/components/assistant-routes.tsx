import { useRoute } from '@tessera/plugin-react/platform'
import { assistantRoutes } from '../../../lib/paths.ts'
import { SharesPage } from '../../share/components/shares-page.tsx'
import { TeamUsagePage } from '../../team-usage/components/team-usage-page.tsx'
import AssistantPage from './assistant-page.tsx'

// The list of shared links is in this chunk although it is rarely opened: loaded lazily, what it
// shares with the conversations' page became two more files on every cold /assistant (decision 049).

/** The assistant's pages: the team usage page, or the conversations. */
export default function AssistantRoutes() {
  const route = useRoute()
  if (route.replace(/\/$/, '') === assistantRoutes.shares) return <SharesPage />
  return route.replace(/\/$/, '') === assistantRoutes.teamUsage ? (
    <TeamUsagePage />
  ) : (
    <AssistantPage />
  )
}
