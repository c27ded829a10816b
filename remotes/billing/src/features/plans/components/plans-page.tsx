import { useCallback, useEffect, useRef, useState } from 'react'
import type { PlansResponse, PlanView } from '@tessera/contracts/billing'
import type { PlanId } from '@tessera/contracts/plans'
import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform, useSession } from '@tessera/plugin-react/platform'
import type { PaidPlanId } from '../../../lib/billing-api.ts'
import { describeFailure, type Failure } from '../../../lib/failure.ts'
import { billingPaths } from '../../../lib/paths.ts'
import { externalRedirect } from '../../../lib/redirect.ts'
import { useBillingApi } from '../../../lib/use-billing-api.ts'
import { useLeaving } from '../../../lib/use-leaving.ts'
import { useSearchParams } from '@tessera/plugin-react/use-search'
import { BillingNav } from '../../layout/components/billing-nav.tsx'
import { BillingPage, Progress } from '../../layout/components/billing-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import { PastDueBanner } from '../../past-due/components/past-due-banner.tsx'
import { useOpenPortal } from '../../portal/use-open-portal.ts'
import { formatSeatPrice } from '../../../lib/seat-wording.ts'
import { useTeamSize } from '../../team/use-team-size.ts'
import { PlanCard, type PlanAction } from './plan-card.tsx'

type PlansState =
  | { status: 'loading' }
  | { status: 'ready'; data: PlansResponse }
  | { status: 'failed'; failure: Failure }

/** `/billing/plans`: the plans side by side, the current one marked, a way to subscribe. */
export function PlansPage() {
  const platform = usePlatform()
  const api = useBillingApi()
  const session = useSession()
  const search = useSearchParams()
  const portal = useOpenPortal()
  const [plans, setPlans] = useState<PlansState>({ status: 'loading' })
  const [failure, setFailure] = useState<Failure | null>(null)
  const [portalFor, setPortalFor] = useState<PlanId | null>(null)
  const alertRef = useRef<HTMLDivElement>(null)

  const load = useCallback(async () => {
    try {
      setPlans({ status: 'ready', data: await api.plans() })
    } catch (error) {
      setPlans({
        status: 'failed',
        failure: describeFailure(error, 'The plans could not be loaded.'),
      })
    }
  }, [api])

  // Read again when someone signs in or out here or in another tab: `current` depends on it.
  useEffect(() => {
    if (session.status === 'loading') return
    void load()
  }, [load, session.status])

  // The workspace this session works in (absent from older BFFs: the personal one).
  const workspace = session.status === 'signed-in' ? session.entitlements?.workspace : undefined
  const team = workspace?.kind === 'team' ? workspace : null
  const teamSize = useTeamSize(team?.id ?? null)

  const goToCheckout = useCallback(
    async (plan: PaidPlanId) => {
      // Team is bought for the team this session works in; Pro for the personal workspace.
      const { url } = await api.startCheckout(plan, plan === 'team' ? team?.id : undefined)
      externalRedirect.go(url)
    },
    [api, team?.id],
  )
  const checkout = useLeaving(goToCheckout)

  const subscribe = async (plan: PaidPlanId) => {
    setFailure(null)
    portal.dismiss()
    try {
      await checkout.run(plan)
    } catch (error) {
      const described = describeFailure(error, 'Checkout could not be opened.')
      setFailure(described)
      // Someone who already pays has a subscription this page did not know about: show it.
      if (described.code === 'already_subscribed') void platform.session.refresh()
    }
  }

  const openPortal = () => void portal.open()

  // The portal's failure is the newer news when there is one (it clears when opened again).
  const shownFailure = portal.failure ?? failure
  useEffect(() => {
    if (shownFailure) alertRef.current?.focus()
  }, [shownFailure])

  const signedIn = session.status === 'signed-in'
  const entitlements = signedIn ? session.entitlements : undefined
  // The session follows the plan live (entitlements events); the plans answer is the fallback.
  const current: PlanId | null = signedIn
    ? (entitlements?.plan ?? (plans.status === 'ready' ? plans.data.current : null))
    : null
  const currentName =
    entitlements?.planName ??
    (plans.status === 'ready' ? plans.data.plans.find((p) => p.id === current)?.name : undefined)
  const cancelled = search.get('checkout') === 'cancelled'
  const checkoutPlan = checkout.pending?.arg ?? null

  const actionFor = (plan: PlanView): PlanAction => {
    if (!signedIn) return plan.id === 'free' ? { kind: 'start-free' } : { kind: 'sign-in' }
    if (plan.id === current) return { kind: 'current' }
    if (workspace?.kind === 'personal' && plan.perSeat) {
      return {
        kind: 'note',
        text: `${plan.name} is for a team: create a team workspace or switch to one, then subscribe there.`,
      }
    }
    if (team !== null && plan.id !== 'free' && !plan.perSeat) {
      return { kind: 'note', text: `${plan.name} is for your personal workspace.` }
    }
    if (team?.role === 'member' && plan.id !== 'free') {
      return { kind: 'note', text: 'Ask an owner or admin of this team to change its plan.' }
    }
    // A paying customer changes plan (or goes back to Free) in the portal, where Stripe prorates.
    if (current !== null && current !== 'free') return { kind: 'portal' }
    if (plan.id === 'free') return { kind: 'none' }
    return { kind: 'subscribe', plan: plan.id }
  }

  return (
    <BillingPage
      title="Plans"
      intro="Pick the plan that fits how much you use the assistant. Change or cancel at any time."
    >
      <BillingNav />
      {entitlements?.pastDue && <PastDueBanner planName={entitlements.planName} />}
      {cancelled && current !== null && (
        <p className="notice" role="status">
          Checkout was cancelled — you are still on {currentName ?? 'your current plan'}.
        </p>
      )}
      {shownFailure && (
        <FailureAlert failure={shownFailure} alertRef={alertRef} returnTo={billingPaths.plans}>
          {shownFailure.action === 'portal' && (
            <p className="failure__action">
              <button
                type="button"
                className="button button--secondary"
                disabled={portal.opening}
                aria-busy={portal.opening}
                onClick={openPortal}
              >
                {portal.opening && <span className="spinner" aria-hidden="true" />}
                {portal.opening ? 'Opening the billing portal…' : 'Open the billing portal'}
              </button>
            </p>
          )}
        </FailureAlert>
      )}
      {plans.status === 'loading' && <Progress>Loading plans…</Progress>}
      {plans.status === 'failed' && (
        <FailureAlert failure={plans.failure} returnTo={billingPaths.plans}>
          <p className="failure__action">
            <button type="button" className="button button--secondary" onClick={() => void load()}>
              Try again
            </button>
          </p>
        </FailureAlert>
      )}
      {plans.status === 'ready' && (
        <ul className="plan-grid" aria-label="Plans">
          {plans.data.plans.map((plan) => (
            <PlanCard
              key={plan.id}
              plan={plan}
              action={actionFor(plan)}
              current={plan.id === current}
              busy={checkoutPlan === plan.id || (portal.opening && portalFor === plan.id)}
              locked={checkoutPlan !== null || portal.opening}
              seatLine={
                team !== null && plan.perSeat && teamSize !== null
                  ? formatSeatPrice(teamSize, plan)
                  : undefined
              }
              onSubscribe={(id) => void subscribe(id)}
              onOpenPortal={() => {
                setPortalFor(plan.id)
                openPortal()
              }}
            />
          ))}
        </ul>
      )}
      <p className="visually-hidden" role="status">
        {checkoutPlan !== null ? 'Opening secure checkout…' : ''}
        {portal.opening ? 'Opening the billing portal…' : ''}
      </p>
      {plans.status === 'ready' && (
        <p className="plans-footnote muted">
          Paid plans renew every month. Payments are handled securely by Stripe.{' '}
          {signedIn && <AppLink to={billingPaths.overview}>See your billing</AppLink>}
        </p>
      )}
    </BillingPage>
  )
}
