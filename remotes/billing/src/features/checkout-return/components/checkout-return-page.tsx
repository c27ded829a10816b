import { AppLink } from '@tessera/plugin-react/app-link'
import { useSession } from '@tessera/plugin-react/platform'
import { billingPaths, otherPaths, withNext } from '../../../lib/paths.ts'
import { useSearchParams } from '@tessera/plugin-react/use-search'
import { BillingPage } from '../../layout/components/billing-page.tsx'
import { FailureAlert } from '../../layout/components/failure-alert.tsx'
import {
  defaultTiming,
  useCheckoutConfirmation,
  type CheckoutPhase,
  type ConfirmationTiming,
} from '../use-checkout-confirmation.ts'
import '../checkout-return.css'

type StepState = 'done' | 'current' | 'waiting'

const steps = ['Payment received', 'Confirming your subscription', 'Done'] as const

/** Which steps are done for a phase: payment, confirmation, done. */
function stepStates(phase: CheckoutPhase): [StepState, StepState, StepState] {
  switch (phase) {
    case 'paid':
      return ['done', 'current', 'waiting']
    case 'confirmed':
      return ['done', 'done', 'done']
    default:
      return ['current', 'waiting', 'waiting']
  }
}

const stepStateText: Record<StepState, string> = {
  done: 'done',
  current: 'in progress',
  waiting: 'not started',
}

/** The sentence the live region reads for each phase. */
function progressSentence(phase: CheckoutPhase): string {
  switch (phase) {
    case 'checking':
      return 'Checking your payment with Stripe…'
    case 'unpaid':
      return 'Waiting for Stripe to report your payment…'
    case 'paid':
      return 'Payment received. Confirming your subscription…'
    default:
      return ''
  }
}

/**
 * `/billing/return?session_id=…`, where Stripe sends people after paying. Coming back here proves
 * nothing: the page shows each step as the BFF confirms it, and the new plan only once the
 * webhook has been applied.
 */
export function CheckoutReturnPage({ timing = defaultTiming }: { timing?: ConfirmationTiming }) {
  const search = useSearchParams()
  const sessionId = search.get('session_id')
  const session = useSession()
  if (session.status === 'signed-out') {
    return (
      <BillingPage
        title="Sign in to finish"
        intro="Sign in with the account you subscribed with to see your plan."
      >
        <p>
          <AppLink to={withNext(otherPaths.signIn, returnPath())}>Sign in</AppLink>
        </p>
      </BillingPage>
    )
  }
  if (sessionId === null || sessionId === '') {
    return (
      <BillingPage
        title="Nothing to confirm"
        intro="This page confirms a subscription after checkout, but the address does not name one."
      >
        <p>
          <AppLink to={billingPaths.plans}>Choose a plan</AppLink> or{' '}
          <AppLink to={billingPaths.overview}>see your billing</AppLink>.
        </p>
      </BillingPage>
    )
  }
  // Keyed: another checkout in the address starts from the beginning.
  return <Confirmation key={sessionId} sessionId={sessionId} timing={timing} />
}

const returnPath = () => `${window.location.pathname}${window.location.search}`

function Confirmation({ sessionId, timing }: { sessionId: string; timing: ConfirmationTiming }) {
  const { state, checkNow } = useCheckoutConfirmation(sessionId, timing)
  const { phase, status, timedOut, failure } = state
  const planName = status?.entitlements.planName ?? null

  if (phase === 'confirmed') {
    const name = planName ?? 'your new plan'
    return (
      <BillingPage
        title={`You're on ${name}`}
        intro="Your payment went through and Stripe has confirmed your subscription."
        result="confirmed"
      >
        <Steps phase={phase} />
        <div className="return-actions">
          <AppLink to={otherPaths.assistant} className="button button--primary">
            Open the assistant
          </AppLink>
          <AppLink to={billingPaths.overview} className="button button--secondary">
            See your billing
          </AppLink>
        </div>
      </BillingPage>
    )
  }

  if (phase === 'expired' || phase === 'not-found') {
    return (
      <BillingPage
        title={phase === 'expired' ? 'This checkout expired' : 'We could not find this checkout'}
        intro={
          phase === 'expired'
            ? `It was not paid in time, so you have not been charged${
                planName ? ` and are still on ${planName}` : ''
              }.`
            : 'The link may be incomplete, or the checkout belongs to another account. You have not been charged for it here.'
        }
        result={phase}
      >
        <div className="return-actions">
          <AppLink to={billingPaths.plans} className="button button--primary">
            Choose a plan
          </AppLink>
          <AppLink to={billingPaths.overview} className="button button--secondary">
            See your billing
          </AppLink>
        </div>
      </BillingPage>
    )
  }

  return (
    <BillingPage
      title="Confirming your subscription"
      intro="This takes a few seconds. Your plan changes once Stripe confirms the payment to us."
      result={timedOut ? 'slow' : undefined}
    >
      <Steps phase={phase} />
      <p className="progress" role="status">
        <span className="spinner" aria-hidden="true" />
        {progressSentence(phase)}
      </p>
      {timedOut && <TakingLong phase={phase} sessionId={sessionId} onCheckNow={checkNow} />}
      {timedOut && failure && <FailureAlert failure={failure} returnTo={returnPath()} />}
    </BillingPage>
  )
}

function Steps({ phase }: { phase: CheckoutPhase }) {
  const states = stepStates(phase)
  return (
    <ol className="steps" aria-label="Subscription progress">
      {steps.map((label, index) => {
        const stepState = states[index] ?? 'waiting'
        return (
          <li
            key={label}
            className={`step step--${stepState}`}
            aria-current={stepState === 'current' ? 'step' : undefined}
          >
            <span className="step__marker" aria-hidden="true">
              {stepState === 'done' ? '✓' : stepState === 'current' ? '' : index + 1}
            </span>
            <span className="step__label">{label}</span>
            <span className="visually-hidden">, {stepStateText[stepState]}</span>
          </li>
        )
      })}
    </ol>
  )
}

function TakingLong({
  phase,
  sessionId,
  onCheckNow,
}: {
  phase: CheckoutPhase
  sessionId: string
  onCheckNow: () => void
}) {
  return (
    <div className="card taking-long">
      <h2>This is taking longer than usual</h2>
      {phase === 'paid' ? (
        <p>
          Stripe has your payment, but has not confirmed the subscription to us yet. You can wait
          here, or carry on: your plan changes everywhere in the app by itself once it is confirmed,
          and the badge in the header shows it.
        </p>
      ) : (
        <p>
          Stripe has not reported a payment for this checkout. If you closed the payment page before
          paying, you have not been charged:{' '}
          <AppLink to={billingPaths.plans}>go back to the plans</AppLink> to start again.
        </p>
      )}
      <p>
        If nothing changes within ten minutes, contact support and quote checkout{' '}
        <code className="break-anywhere">{sessionId}</code>.
      </p>
      <p>
        <button type="button" className="button button--secondary" onClick={onCheckNow}>
          Check again now
        </button>
      </p>
    </div>
  )
}
