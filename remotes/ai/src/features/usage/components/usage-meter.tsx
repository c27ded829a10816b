import { useId } from 'react'
import type { Usage } from '@tessera/contracts/assistant'
import { AppLink } from '@tessera/plugin-react/app-link'
import { useSession } from '@tessera/plugin-react/platform'
import { formatCount, formatDay } from '@tessera/plugin-react/format'
import { billingPlansPath } from '../../../lib/paths.ts'
import { usageLevel, type UsageState } from '../use-usage.ts'
import '../usage.css'

/**
 * "12 400 of 50 000 tokens this month"; in a team, "Your use: 1 200 of 8 000 tokens this month ·
 * team pool left: 90 000" (the limit being what the cap and the pool still allow).
 */
export function usageSentence(usage: Usage): string {
  const mine = `${formatCount(usage.used)} of ${formatCount(usage.limit)} tokens this month`
  if (usage.pool === undefined) return mine
  return `Your use: ${mine} · team pool left: ${formatCount(poolLeft(usage))}`
}

/** The tokens left in a team's pool this month (0 outside a team). */
export function poolLeft(usage: Usage): number {
  const pool = usage.pool
  return pool === undefined ? 0 : Math.max(0, pool.limit - pool.used - pool.reserved)
}

/**
 * The bar itself: a meter carrying its numbers as text. `decorative` when what surrounds it says
 * the numbers already (the header's link).
 */
export function UsageBar({
  usage,
  labelledBy,
  decorative = false,
}: {
  usage: Usage
  labelledBy?: string
  decorative?: boolean
}) {
  const { ratio, level } = usageLevel(usage)
  const percent = Math.round(ratio * 100)
  if (decorative) {
    return (
      <span className={`usage-bar usage-bar--${level}`} aria-hidden="true">
        <span className="usage-bar__fill" style={{ width: `${ratio * 100}%` }} />
      </span>
    )
  }
  return (
    <div
      className={`usage-bar usage-bar--${level}`}
      role="meter"
      aria-valuemin={0}
      aria-valuemax={usage.limit}
      aria-valuenow={Math.min(usage.used, usage.limit)}
      aria-valuetext={`${usageSentence(usage)} (${percent} %)`}
      {...(labelledBy ? { 'aria-labelledby': labelledBy } : { 'aria-label': 'Tokens used' })}
    >
      <span className="usage-bar__fill" style={{ width: `${ratio * 100}%` }} />
    </div>
  )
}

/** The page's usage panel: plan, bar, numbers, reset day, and the way to more tokens. */
export function UsageMeter({ state, onRetry }: { state: UsageState; onRetry: () => void }) {
  const session = useSession()
  const labelId = useId()
  const planName = session.status === 'signed-in' ? session.entitlements?.planName : undefined
  return (
    <section className="usage" aria-labelledby={labelId}>
      <div className="usage__head">
        <h2 id={labelId} className="usage__title">
          Tokens
        </h2>
        {planName && <span className="usage__plan">{planName} plan</span>}
      </div>
      {state.status === 'loading' && (
        <p className="usage__text muted" role="status">
          Loading your usage…
        </p>
      )}
      {state.status === 'failed' && (
        <p className="usage__text">
          {state.message}{' '}
          <button type="button" className="link-button" onClick={onRetry}>
            Try again
          </button>
        </p>
      )}
      {state.status === 'ready' && (
        <>
          <UsageBar usage={state.usage} labelledBy={labelId} />
          <p className="usage__text">{usageSentence(state.usage)}</p>
          {usageLevel(state.usage).level === 'reached' ? (
            <p className="usage__note usage__note--reached">
              You have used this month’s tokens.{' '}
              <AppLink to={billingPlansPath}>Upgrade your plan</AppLink> or wait until{' '}
              {formatDay(state.usage.periodEnd)}.
            </p>
          ) : (
            <p className="usage__note muted">
              Resets on {formatDay(state.usage.periodEnd)}.{' '}
              {usageLevel(state.usage).level === 'high' && (
                <AppLink to={billingPlansPath}>Get more tokens</AppLink>
              )}
            </p>
          )}
        </>
      )}
    </section>
  )
}
