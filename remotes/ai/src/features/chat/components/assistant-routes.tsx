import { useRoute } from '@tessera/plugin-react/platform'
import { assistantRoutes } from '../../../lib/paths.ts'
import { TeamUsagePage } from '../../team-usage/components/team-usage-page.tsx'
import AssistantPage from './assistant-page.tsx'

/** The assistant's pages: the team usage page, or the conversations. */
export default function AssistantRoutes() {
  const route = useRoute()
  return route.replace(/\/$/, '') === assistantRoutes.teamUsage ? (
    <TeamUsagePage />
  ) : (
    <AssistantPage />
  )
}
