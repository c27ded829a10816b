import type { Entitlements } from '@tessera/contracts/plans'
import { AppLink } from '@tessera/plugin-react/app-link'
import { billingPaths } from '../../../lib/paths.ts'

/** The header badge naming the user's plan; it links to the billing page. */
export function PlanBadge({
  entitlements,
  arrived = false,
}: {
  entitlements: Entitlements
  /** The plan has just changed while the page was open: the badge shows it briefly. */
  arrived?: boolean
}) {
  return (
    <AppLink
      to={billingPaths.overview}
      className={`plan-badge plan-badge--${entitlements.plan}${arrived ? ' plan-badge--arrived' : ''}`}
      aria-label={`Current plan: ${entitlements.planName}. Open billing`}
    >
      {entitlements.planName}
    </AppLink>
  )
}
