import { HostLink } from '../../lib/router/host-link.tsx'

/**
 * `/privacy`: what the product stores and who else receives it, kept to what the code does (the
 * tables in supabase/migrations, the cookies the BFF sets, the calls it makes to Stripe and the
 * model provider). There is no account deletion in the product yet, and the page says so.
 */
export function PrivacyPage({ onNavigate }: { onNavigate(to: string): void }) {
  return (
    <article className="host-legal" aria-labelledby="host-privacy-title">
      <h1 className="host-legal__title" id="host-privacy-title">
        Privacy
      </h1>
      <p className="host-legal__lead">
        What Tessera stores about you, who else receives it, and how to have it deleted.
      </p>

      <h2 className="host-legal__heading">What Tessera stores</h2>
      <dl className="host-legal__list">
        <dt>Your account</dt>
        <dd>
          Your email address and your display name. The account service keeps your password as a
          one-way hash, never in readable form.
        </dd>
        <dt>Sessions</dt>
        <dd>
          For each browser you sign in with: the device (browser and operating system, as the
          browser reports them), the network address it signed in from, and when it was created and
          last used. You see them, and can sign them out, on the{' '}
          <HostLink to="/auth/sessions" onNavigate={onNavigate}>
            Sessions
          </HostLink>{' '}
          page.
        </dd>
        <dt>Conversations</dt>
        <dd>
          Their titles and every message in them, yours and the assistant&apos;s, with the tokens
          each answer used. They are kept until you delete them.
        </dd>
        <dt>Usage</dt>
        <dd>How many tokens you have used each month, to apply your plan&apos;s limit.</dd>
        <dt>Subscription</dt>
        <dd>
          If you subscribe: your Stripe customer and subscription (plan, status, renewal date). You
          type card numbers into Stripe&apos;s own page; they never reach Tessera, and Stripe holds
          them.
        </dd>
      </dl>

      <h2 className="host-legal__heading">Who else receives it</h2>
      <ul className="host-legal__bullets">
        <li>
          The AI model provider receives each message you send, with the recent messages of the same
          conversation, to check it and to answer it.
        </li>
        <li>
          Stripe receives your email address when you start a checkout, and handles the payment.
        </li>
        <li>
          The account service (Supabase Auth) holds your email address and password hash, and sends
          the emails that confirm your address and sign you in.
        </li>
      </ul>
      <p>Nothing is sold, and Tessera runs no advertising or analytics scripts.</p>

      <h2 className="host-legal__heading">Cookies and browser storage</h2>
      <p>
        A session cookie keeps you signed in; scripts on the page cannot read it. A second cookie
        remembers that this browser has signed in before, so that other people&apos;s failed
        attempts to sign in to your account do not slow you down here. While a new version of part
        of Tessera is being tried out, a cookie keeps your browser on one version. Your light or
        dark theme choice stays in this browser&apos;s local storage.
      </p>

      <h2 className="host-legal__heading">Deleting your data</h2>
      <p>
        Delete a conversation in the assistant and its messages are deleted with it. Sign a device
        out on the Sessions page and its session ends at once.
      </p>
      <p>
        You cannot delete your whole account yourself yet. To have it deleted, ask the operator who
        runs this Tessera service: deleting the account removes your profile, sessions,
        conversations, usage and subscription records with it. Cancel a paid plan first; Stripe
        keeps its own records of payments.
      </p>
    </article>
  )
}
