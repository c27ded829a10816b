import { useState } from 'react'
import type { Entitlements } from '@tessera/contracts/plans'
import { useSession } from '@tessera/plugin-react/platform'
import { PastDueNotice } from '../../past-due/components/past-due-banner.tsx'
import { PlanBadge } from '../../plan-badge/components/plan-badge.tsx'
import '../billing-header.css'

/** The sentence read out when the plan or its payment changes while the page is open. */
export function describeChange(before: Entitlements, after: Entitlements): string {
  if (after.pastDue && !before.pastDue) {
    return `Your last payment failed. You still have ${after.planName}; fix the payment to keep it.`
  }
  if (after.plan !== before.plan) return `Your plan is now ${after.planName}.`
  if (before.pastDue && !after.pastDue) return 'Your payment went through.'
  return ''
}

const keyOf = (entitlements: Entitlements | null) =>
  entitlements === null ? '' : `${entitlements.plan}|${entitlements.pastDue}`

/**
 * The `header.end` slot: for a signed-in user, the plan badge and, while a payment has failed,
 * the compact "fix payment" banner. It sits in the header so it is seen on every page, whichever
 * remote owns the page. Signed-out visitors have no plan, so nothing is shown to them.
 */
export function BillingHeader() {
  const session = useSession()
  const entitlements = session.status === 'signed-in' ? (session.entitlements ?? null) : null
  // Changes are announced, not the first value: a page load is not news (state adjusted during
  // render, React's pattern for "changed since last render").
  const [seen, setSeen] = useState({ entitlements, announcement: '' })
  if (keyOf(entitlements) !== keyOf(seen.entitlements)) {
    const before = seen.entitlements
    setSeen({
      entitlements,
      announcement:
        before !== null && entitlements !== null ? describeChange(before, entitlements) : '',
    })
  }
  return (
    <div
      className={
        entitlements?.pastDue ? 'billing-header billing-header--past-due' : 'billing-header'
      }
    >
      {entitlements?.pastDue && <PastDueNotice />}
      {entitlements && (
        // Keyed by plan, so a new plan is a new element and its arrival animation plays.
        <PlanBadge
          key={entitlements.plan}
          entitlements={entitlements}
          arrived={seen.announcement !== ''}
        />
      )}
      <span className="visually-hidden" role="status">
        {seen.announcement}
      </span>
    </div>
  )
}
