import { useEffect, useRef } from 'react'
import { SIGN_IN_PATH } from '@tessera/contracts'
import { planList, type Plan } from '@tessera/contracts/plan-values'
import { HostLink } from '../../lib/router/host-link.tsx'
import { nextPaint, whenContentPainted } from '../remotes/load-order.ts'
import { useRemotesRuntime } from '../remotes/remotes-context.tsx'
import {
  formatPlanModels,
  formatPlanPeriod,
  formatPlanPrice,
  formatPlanTokens,
} from './plan-wording.ts'
import { SIGN_UP_PATH } from './start-route.ts'

/** Where a paid plan's button goes: sign up, then the plans page to subscribe. */
const SIGN_UP_FOR_PLANS = `${SIGN_UP_PATH}?${new URLSearchParams({ next: '/billing/plans' }).toString()}`

// Only what the product does today: each line is a page or a behaviour that exists.
const features = [
  {
    title: 'Chat with the assistant',
    body: 'Answers appear as the model writes them, with code, lists and tables laid out. Stop an answer at any moment: what was written is kept.',
  },
  {
    title: 'Come back to any conversation',
    body: 'Every conversation is saved under a title you can change. Delete one, and its messages go with it.',
  },
  {
    title: 'Know what you have left',
    body: 'Each plan includes a number of AI tokens a month. A meter in the header shows how many you have used.',
  },
  {
    title: 'Keep your account in hand',
    body: 'Sign in with a password or with a link sent by email, see every device signed in to your account, and sign any of them out.',
  },
] as const

interface LandingPageProps {
  onNavigate(to: string): void
}

/**
 * `/` for visitors who are not signed in: what Tessera is, the plans from the catalogue, and the
 * ways in. The host draws it with its own code and CSS only (it is the first page people judge),
 * so nothing here waits for a remote; the header's slots may load once it is shown.
 */
export function LandingPage({ onNavigate }: LandingPageProps) {
  const runtime = useRemotesRuntime()
  const page = useRef<HTMLDivElement>(null)
  // No remote owns this page; the header's slots wait until its text is painted and the frame
  // after it too, so their code does not compete with the first thing a visitor reads. (Chromium
  // reports the paint before the frame is on screen; a slot's code released at once could arrive
  // first, and a phone would then show the text after it.)
  useEffect(() => {
    const element = page.current
    void (element === null ? Promise.resolve() : whenContentPainted(element).then(nextPaint)).then(
      () => runtime.loadOrder.releaseSlots(),
    )
  }, [runtime])
  return (
    <div className="host-landing" ref={page}>
      <section className="host-landing__hero" aria-labelledby="host-landing-title">
        <div className="host-landing__intro">
          <p className="host-landing__eyebrow">AI assistant</p>
          <h1 className="host-landing__title" id="host-landing-title">
            Ask anything, and keep every answer
          </h1>
          <p className="host-landing__lead">
            Tessera is an AI assistant you chat with. Answers stream in as they are written, your
            conversations are kept for you to come back to, and your plan&apos;s monthly allowance
            is always in view.
          </p>
          <div className="host-landing__actions">
            <HostLink
              className="host-button host-button--primary host-button--large"
              to={SIGN_UP_PATH}
              onNavigate={onNavigate}
            >
              Start free
            </HostLink>
            <HostLink
              className="host-button host-button--large"
              to={SIGN_IN_PATH}
              onNavigate={onNavigate}
            >
              Sign in
            </HostLink>
          </div>
          <p className="host-landing__note">The Free plan needs no card.</p>
        </div>
        {/* The brand's mosaic, large: tiles in CSS, nothing to download. */}
        <div className="host-landing__mosaic" aria-hidden="true">
          {Array.from({ length: 16 }, (_, index) => (
            <span key={index} className="host-landing__tile" />
          ))}
        </div>
      </section>

      <section className="host-landing__section" aria-labelledby="host-landing-features-title">
        <h2 className="host-landing__heading" id="host-landing-features-title">
          What you can do
        </h2>
        <ul className="host-landing__features">
          {features.map((feature) => (
            <li key={feature.title} className="host-landing__feature">
              <h3 className="host-landing__feature-title">{feature.title}</h3>
              <p className="host-landing__feature-body">{feature.body}</p>
            </li>
          ))}
        </ul>
      </section>

      <section className="host-landing__section" aria-labelledby="host-landing-plans-title">
        <h2 className="host-landing__heading" id="host-landing-plans-title">
          Plans
        </h2>
        <p className="host-landing__section-intro">
          Start on Free and move up when you need more. Paid plans are billed monthly through
          Stripe, and you can cancel at any time.
        </p>
        <ul className="host-landing__plans">
          {planList.map((plan) => (
            <PlanCard key={plan.id} plan={plan} onNavigate={onNavigate} />
          ))}
        </ul>
        <p className="host-landing__fine">
          Free and Pro are for one person&apos;s account; Team is billed per seat. Every plan keeps
          your conversation history. Tokens count what the model reads (your message and the
          conversation so far) and what it writes, per calendar month (UTC).
        </p>
      </section>
    </div>
  )
}

function PlanCard({ plan, onNavigate }: { plan: Plan; onNavigate(to: string): void }) {
  const headingId = `host-landing-plan-${plan.id}`
  const free = plan.monthlyPrice === 0
  return (
    <li className="host-plan" aria-labelledby={headingId}>
      <h3 className="host-plan__name" id={headingId}>
        {plan.name}
      </h3>
      <p className="host-plan__tagline">{plan.tagline}</p>
      <p className="host-plan__price">
        <span className="host-plan__amount">{formatPlanPrice(plan)}</span>{' '}
        <span className="host-plan__period">{formatPlanPeriod(plan)}</span>
      </p>
      <ul className="host-plan__limits" aria-label={`${plan.name} includes`}>
        <li>{formatPlanTokens(plan)}</li>
        <li>{formatPlanModels(plan)}</li>
      </ul>
      <HostLink
        className={`host-button host-plan__button${free ? ' host-button--primary' : ''}`}
        to={free ? SIGN_UP_PATH : SIGN_UP_FOR_PLANS}
        onNavigate={onNavigate}
      >
        {free ? 'Start free' : `Choose ${plan.name}`}
      </HostLink>
    </li>
  )
}
