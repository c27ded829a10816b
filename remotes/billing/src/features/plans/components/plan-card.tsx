import { useId } from 'react'
import type { PlanView } from '@tessera/contracts/billing'
import { AppLink } from '@tessera/plugin-react/app-link'
import type { PaidPlanId } from '../../../lib/billing-api.ts'
import { formatMoney } from '@tessera/plugin-react/format'
import { formatModels, formatPeriod, formatTokens } from '../../../lib/plan-wording.ts'
import { billingPaths, otherPaths, withNext } from '../../../lib/paths.ts'

/** What a plan's card offers the person looking at it. */
export type PlanAction =
  | { kind: 'current' }
  | { kind: 'subscribe'; plan: PaidPlanId }
  | { kind: 'portal' }
  | { kind: 'sign-in' }
  /** A visitor looking at Free: an account is all it takes. */
  | { kind: 'start-free' }
  | { kind: 'none' }
  /** Nothing to do here, and why (a plan for another kind of workspace, a member's role). */
  | { kind: 'note'; text: string }

interface PlanCardProps {
  plan: PlanView
  action: PlanAction
  current: boolean
  /** This card's request is out. */
  busy: boolean
  /** Some request is out: every button waits, so nothing is sent twice. */
  locked: boolean
  onSubscribe: (plan: PaidPlanId) => void
  onOpenPortal: () => void
  /** For a per-seat plan in a team: what the team's seats cost. */
  seatLine?: string | undefined
}

/** One plan: name, price, what it includes, and the one thing to do about it. */
export function PlanCard({
  plan,
  action,
  current,
  busy,
  locked,
  onSubscribe,
  onOpenPortal,
  seatLine,
}: PlanCardProps) {
  const headingId = useId()
  const price = formatMoney(plan.monthlyPrice, plan.currency)
  return (
    <li
      className={current ? 'plan-card plan-card--current' : 'plan-card'}
      aria-labelledby={headingId}
    >
      <div className="plan-card__top">
        <h2 id={headingId} className="plan-card__name">
          {plan.name}
        </h2>
        {current && <span className="plan-card__current">Current plan</span>}
      </div>
      <p className="plan-card__tagline">{plan.tagline}</p>
      <p className="plan-card__price">
        <span className="plan-card__amount">{price}</span>{' '}
        <span className="plan-card__period">{formatPeriod(plan)}</span>
      </p>
      {seatLine !== undefined && <p className="plan-card__seats">{seatLine}</p>}
      <div className="plan-card__action">
        <PlanCardAction
          plan={plan}
          action={action}
          busy={busy}
          locked={locked}
          onSubscribe={onSubscribe}
          onOpenPortal={onOpenPortal}
        />
      </div>
      <ul className="plan-card__features" aria-label={`${plan.name} includes`}>
        <li>{formatTokens(plan.monthlyTokens, undefined, plan.perSeat)}</li>
        <li>
          {plan.models.length === 1 ? 'Model' : 'Models'}: {formatModels(plan.models)}
        </li>
        {plan.features.map((feature) => (
          <li key={feature}>{feature}</li>
        ))}
      </ul>
    </li>
  )
}

function PlanCardAction({
  plan,
  action,
  busy,
  locked,
  onSubscribe,
  onOpenPortal,
}: Omit<PlanCardProps, 'current' | 'seatLine'>) {
  switch (action.kind) {
    case 'note':
      return <p className="plan-card__note">{action.text}</p>
    case 'current':
      return <p className="plan-card__note">You are on this plan.</p>
    case 'none':
      return <p className="plan-card__note">Included with every account.</p>
    case 'sign-in':
      return (
        <AppLink
          to={withNext(otherPaths.signIn, billingPaths.plans)}
          className="button button--secondary plan-card__button"
        >
          Sign in to subscribe
        </AppLink>
      )
    case 'start-free':
      return (
        <AppLink to={otherPaths.signUp} className="button button--primary plan-card__button">
          Start free
        </AppLink>
      )
    case 'portal':
      return (
        <button
          type="button"
          className="button button--secondary plan-card__button"
          disabled={locked}
          aria-busy={busy}
          onClick={onOpenPortal}
        >
          {busy && <span className="spinner" aria-hidden="true" />}
          {busy ? 'Opening the portal…' : `Switch to ${plan.name}`}
        </button>
      )
    case 'subscribe':
      return (
        <button
          type="button"
          className="button button--primary plan-card__button"
          disabled={locked}
          aria-busy={busy}
          onClick={() => onSubscribe(action.plan)}
        >
          {busy && <span className="spinner" aria-hidden="true" />}
          {busy ? 'Opening checkout…' : `Subscribe to ${plan.name}`}
        </button>
      )
  }
}
