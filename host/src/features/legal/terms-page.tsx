import { HostLink } from '../../lib/router/host-link.tsx'

/** `/terms`: short terms of use, each sentence true of the product as it is. */
export function TermsPage({ onNavigate }: { onNavigate(to: string): void }) {
  return (
    <article className="host-legal" aria-labelledby="host-terms-title">
      <h1 className="host-legal__title" id="host-terms-title">
        Terms of use
      </h1>
      <p className="host-legal__lead">
        Tessera is an AI assistant. These terms say what you can expect from it and what it expects
        of you. By creating an account you agree to them.
      </p>

      <h2 className="host-legal__heading">Your account</h2>
      <p>
        You sign up with an email address, which we confirm by sending a link to it. Keep your
        password to yourself: what is done while signed in as you is done by you. The{' '}
        <HostLink to="/auth/sessions" onNavigate={onNavigate}>
          Sessions
        </HostLink>{' '}
        page of your account lists every device signed in, and signs any of them out.
      </p>

      <h2 className="host-legal__heading">Plans and payment</h2>
      <p>
        The Free plan costs nothing and needs no card. Pro and Team are billed every month through
        Stripe and renew until you cancel. You change plan or cancel in Stripe&apos;s billing
        portal, reached from the{' '}
        <HostLink to="/billing" onNavigate={onNavigate}>
          Billing
        </HostLink>{' '}
        page; after you cancel, the paid plan lasts until the end of the month already paid for.
      </p>
      <p>
        Each plan includes a number of AI tokens a month (calendar months, UTC). Once they are used
        up, the assistant answers again when the next month starts, or at once on a bigger plan.
      </p>

      <h2 className="host-legal__heading">The assistant&apos;s answers</h2>
      <p>
        Answers are written by an AI model. They can be wrong, out of date or incomplete: check
        anything that matters before you rely on it. Messages may be checked by an automated
        moderation service before the model sees them, and some are refused.
      </p>
      <p>
        Do not send what you are not allowed to share, and do not use Tessera to harm others or to
        break the law. How many messages an account may send a minute is limited, so that no one
        account slows everyone else down.
      </p>

      <h2 className="host-legal__heading">Leaving</h2>
      <p>
        You can stop using Tessera at any time; cancel a paid plan first so that it does not renew.
        Deleting an account is done on request for now, as the{' '}
        <HostLink to="/privacy" onNavigate={onNavigate}>
          privacy page
        </HostLink>{' '}
        explains.
      </p>

      <h2 className="host-legal__heading">Changes</h2>
      <p>
        Tessera is offered as it is, and it changes as it is built. These terms change with it; the
        version on this page is the one that applies.
      </p>
    </article>
  )
}
