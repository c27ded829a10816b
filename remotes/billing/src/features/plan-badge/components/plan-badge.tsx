import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform } from '@tessera/plugin-react/platform'
import '../plan-badge.css'

/** The header badge naming the user's plan; everyone is on Free until subscriptions exist. */
export function PlanBadge() {
  const platform = usePlatform()
  return (
    <AppLink
      to={platform.basePath}
      className="plan-badge"
      aria-label="Current plan: Free. Open billing"
    >
      Free
    </AppLink>
  )
}
