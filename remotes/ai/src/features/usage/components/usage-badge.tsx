import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform } from '@tessera/plugin-react/platform'
import { formatCount } from '@tessera/plugin-react/format'
import { billingPlansPath } from '../../../lib/paths.ts'
import { usageLevel, useUsage } from '../use-usage.ts'
import { poolLeft, usageSentence, UsageBar } from './usage-meter.tsx'
import '../usage.css'

/**
 * The header's usage meter: the month's tokens at a glance, updated live. It links to the
 * assistant, or to the plans once the tokens are gone. Nothing is shown to signed-out visitors.
 */
export function UsageBadge() {
  const platform = usePlatform()
  const { state } = useUsage()
  if (state.status !== 'ready') return null
  const { usage } = state
  const reached = usageLevel(usage).level === 'reached'
  // What the badge shows, word for word at the start of its name (WCAG 2.5.3).
  const shown =
    usage.pool === undefined
      ? `${formatCount(usage.used)} of ${formatCount(usage.limit)}`
      : `${formatCount(usage.used)} of ${formatCount(usage.limit)} · pool ${formatCount(poolLeft(usage))} left`
  const name =
    usage.pool === undefined
      ? usageSentence(usage)
      : `${shown}: your tokens this month, and what the team’s pool has left`
  return (
    <AppLink
      to={reached ? billingPlansPath : platform.basePath}
      className={reached ? 'usage-badge usage-badge--reached' : 'usage-badge'}
      // The name holds the visible numbers as they read ("12,400 of 50,000"): WCAG 2.5.3.
      aria-label={reached ? `${name}: the limit is reached. See plans` : `Assistant: ${name}`}
      title={usageSentence(usage)}
    >
      <UsageBar usage={usage} decorative />
      <span className="usage-badge__text" aria-hidden="true">
        {shown}
      </span>
    </AppLink>
  )
}
