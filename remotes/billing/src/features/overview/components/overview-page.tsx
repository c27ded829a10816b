import { useEffect, useId, useRef } from 'react'
import type { SubscriptionView } from '@tessera/contracts/billing'
import type { Entitlements, SubscriptionStatus } from '@tessera/contracts/plans'
import { AppLink } from '@tessera/plugin-react/app-link'
import { formatDate } from '@tessera/plugin-react/format'
import { formatModels, formatTokens } from '../../../lib/plan-wording.ts'
import { billingPaths } from '../../../lib/paths.ts'
import { useSubscription } from '../../../lib/use-subscription.ts'
import { BillingNav } from '../../layout/components/billing-nav.tsx'
import { BillingPage, Progress } from '../../layout/components/billing-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { PastDueBanner } from '../../past-due/components/past-due-banner.tsx'
import { useOpenPortal } from '../../portal/use-open-portal.ts'
import { NextInvoice } from '../../team/components/next-invoice.tsx'

const statusLabels: Record<SubscriptionStatus, string> = {
  active: 'Active',
  trialing: 'Trial',
  past_due: 'Payment failed',
  canceled: 'Cancelled',
  unpaid: 'Unpaid',
  incomplete: 'Awaiting payment',
  incomplete_expired: 'Expired',
  paused: 'Paused',
}

/** The one line about dates: when the plan renews, or when it ends. */
export function dateLine(subscription: SubscriptionView, planName: string): string | null {
  if (subscription.cancelAt !== null) {
    return `Cancels on ${formatDate(subscription.cancelAt)}. You keep ${planName} until then.`
  }
  if (subscription.currentPeriodEnd === null) return null
  const end = formatDate(subscription.currentPeriodEnd)
  switch (subscription.status) {
    case 'active':
      return `Renews on ${end}.`
    case 'trialing':
      return `Your trial ends on ${end}; the first payment is taken then.`
    case 'past_due':
      return `Stripe is retrying your last payment. The next renewal is due on ${end}.`
    default:
      return null
  }
}

/** `/billing`: the plan, its status and dates, and the way into Stripe's billing portal. */
export function OverviewPage() {
  const { state, reload } = useSubscription()
  const portal = useOpenPortal()
  const alertRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (portal.failure) alertRef.current?.focus()
  }, [portal.failure])

  return (
    <BillingPage title="Billing" intro="Your plan, what it includes, and your payments.">
      <BillingNav />
      {state.status === 'ready' && state.data.entitlements.pastDue && (
        <PastDueBanner planName={state.data.entitlements.planName} />
      )}
      {portal.failure && (
        <FailureAlert
          failure={portal.failure}
          alertRef={alertRef}
          returnTo={billingPaths.overview}
        />
      )}
      {state.status === 'loading' && <Progress>Loading your subscription…</Progress>}
      {state.status === 'failed' && (
        <FailureAlert failure={state.failure} returnTo={billingPaths.overview}>
          <p className="failure__action">
            <button
              type="button"
              className="button button--secondary"
              onClick={() => void reload()}
            >
              Try again
            </button>
          </p>
        </FailureAlert>
      )}
      {state.status === 'ready' && (
        <PlanSummary
          subscription={state.data.subscription}
          entitlements={state.data.entitlements}
          portalOpening={portal.opening}
          onOpenPortal={() => void portal.open()}
        />
      )}
      {state.status === 'ready' &&
        state.data.subscription?.seats !== undefined &&
        state.data.entitlements.workspace?.kind === 'team' &&
        state.data.entitlements.workspace.role !== 'member' && (
          <NextInvoice seats={state.data.subscription.seats} />
        )}
    </BillingPage>
  )
}

interface PlanSummaryProps {
  subscription: SubscriptionView | null
  entitlements: Entitlements
  portalOpening: boolean
  onOpenPortal: () => void
}

function PlanSummary({
  subscription,
  entitlements,
  portalOpening,
  onOpenPortal,
}: PlanSummaryProps) {
  const headingId = useId()
  const cancelling = subscription?.cancelAt != null
  const status = subscription
    ? cancelling && subscription.status !== 'canceled'
      ? 'Cancelling'
      : statusLabels[subscription.status]
    : null
  const dates = subscription ? dateLine(subscription, entitlements.planName) : null
  const paying = entitlements.plan !== 'free'
  const team = entitlements.workspace?.kind === 'team' ? entitlements.workspace : null
  // A team's members see its plan and status; its billing is for its owners and admins.
  const manages = team === null || team.role !== 'member'
  return (
    <section className="card plan-summary" aria-labelledby={headingId}>
      <h2 id={headingId} className="plan-summary__heading">
        {team === null ? 'Your plan' : 'Your team’s plan'}
      </h2>
      {/* One live region for the facts that change while the page is open. */}
      <div className="plan-summary__facts" aria-live="polite">
        <p className="plan-summary__plan">
          <span className="plan-summary__name">{entitlements.planName}</span>
          {status && (
            <span
              className={`status-pill status-pill--${
                subscription?.status === 'past_due'
                  ? 'danger'
                  : cancelling
                    ? 'warning'
                    : subscription?.status === 'active' || subscription?.status === 'trialing'
                      ? 'ok'
                      : 'muted'
              }`}
            >
              {status}
            </span>
          )}
        </p>
        {dates && <p className="plan-summary__dates">{dates}</p>}
        {subscription?.seats !== undefined && (
          <p className="plan-summary__dates">
            {subscription.seats === 1 ? '1 seat' : `${subscription.seats} seats`}, one per member of
            the team.
          </p>
        )}
        {subscription === null && (
          <p className="plan-summary__dates">
            {team === null
              ? 'You are on the free plan. Upgrade for more of the assistant and its larger models.'
              : 'This team is on the free plan. Its owners and admins can subscribe it to Team.'}
          </p>
        )}
      </div>
      <ul className="plan-summary__limits" aria-label="Included">
        <li>{formatTokens(entitlements.monthlyTokens)}</li>
        <li>
          {entitlements.models.length === 1 ? 'Model' : 'Models'}:{' '}
          {formatModels(entitlements.models)}
        </li>
      </ul>
      <div className="plan-summary__actions">
        {subscription !== null && manages && (
          <button
            type="button"
            className={paying ? 'button button--primary' : 'button button--secondary'}
            disabled={portalOpening}
            aria-busy={portalOpening}
            onClick={onOpenPortal}
          >
            {portalOpening && <span className="spinner" aria-hidden="true" />}
            {portalOpening ? 'Opening the billing portal…' : 'Manage billing'}
          </button>
        )}
        <AppLink
          to={billingPaths.plans}
          className={paying ? 'plan-summary__plans-link' : 'button button--primary'}
        >
          {paying ? 'Compare plans' : 'See plans'}
        </AppLink>
      </div>
      {!manages && (
        <p className="plan-summary__hint muted">
          The team’s owners and admins manage its billing: seats, invoices and the card.
        </p>
      )}
      {subscription !== null && manages && (
        <p className="plan-summary__hint muted">
          Manage billing opens Stripe’s secure page: change or cancel your plan, update your card,
          see invoices.
        </p>
      )}
    </section>
  )
}
