import { useEffect, useState } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
import { authPaths } from '../../../lib/destinations.ts'
import { withNext } from '../../../lib/next-path.ts'
import { notifyFailure } from '../../../lib/notify-failure.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { AuthPage } from '../../account/components/auth-page.tsx'
import { useSentEmail, type SentEmail } from '../../account/sent-email.tsx'

// Auth refuses a second email to one address within a minute; waiting here says so up front.
const RESEND_PAUSE_SECONDS = 60

const purposes: Record<SentEmail['kind'], string> = {
  signup: 'confirm your address and finish creating your account',
  magiclink: 'sign in',
  recovery: 'choose a new password',
  email_change: 'confirm your new address',
}

const retryPages: Record<SentEmail['kind'], string> = {
  signup: authPaths.signUp,
  magiclink: authPaths.magicLink,
  recovery: authPaths.forgotPassword,
  email_change: authPaths.profile,
}

/** `/auth/check-email`: where to look, and a way to send the email again. */
export function CheckEmailPage() {
  const [sent] = useSentEmail()
  return (
    <AuthPage
      title="Check your email"
      intro={
        sent ? (
          <>
            We sent a link to <strong className="break-anywhere">{sent.email}</strong>. Open it to{' '}
            {purposes[sent.kind]}. It works on any device.
          </>
        ) : (
          'Open the link in the email we just sent you. It works on any device.'
        )
      }
    >
      <div className="panel">
        <h2>Nothing arrived?</h2>
        <ul className="plain-list">
          <li>Emails can take a minute or two. Check your spam or junk folder.</li>
          <li>Make sure the address is the one you meant.</li>
        </ul>
        {sent && sent.kind !== 'email_change' && <ResendButton sent={sent} />}
      </div>
      <div className="auth-page__alternatives">
        {sent && (
          <p>
            <AppLink to={withNext(retryPages[sent.kind], sent.next)}>
              Use a different address
            </AppLink>
          </p>
        )}
        <p>
          <AppLink to={withNext(authPaths.signIn, sent?.next ?? null)}>Back to sign in</AppLink>
        </p>
      </div>
    </AuthPage>
  )
}

function ResendButton({ sent }: { sent: SentEmail }) {
  const platform = usePlatform()
  const api = useAuthApi()
  const [pending, setPending] = useState(false)
  const [wait, setWait] = useState(RESEND_PAUSE_SECONDS)

  useEffect(() => {
    if (wait <= 0) return
    const timer = setTimeout(() => setWait((seconds) => seconds - 1), 1000)
    return () => clearTimeout(timer)
  }, [wait])

  const resend = async () => {
    if (pending || wait > 0) return
    setPending(true)
    try {
      const json = { email: sent.email, ...(sent.next ? { next: sent.next } : {}) }
      if (sent.kind === 'recovery') {
        await api.sendRecoveryLink({ email: sent.email, next: authPaths.resetPassword })
      } else {
        // A sign-in link to an address not yet confirmed is a fresh confirmation link.
        await api.sendMagicLink(json)
      }
      platform.notify({ kind: 'success', message: `We sent a new link to ${sent.email}.` })
      setWait(RESEND_PAUSE_SECONDS)
    } catch (error) {
      notifyFailure(platform, error, 'The email could not be sent again.')
    } finally {
      setPending(false)
    }
  }

  return (
    <p className="resend">
      <button
        type="button"
        className="button button--secondary"
        disabled={pending || wait > 0}
        aria-busy={pending}
        onClick={() => void resend()}
      >
        {pending && <span className="spinner" aria-hidden="true" />}
        {pending ? 'Sending…' : 'Send the link again'}
      </button>
      {wait > 0 && !pending && (
        <span className="muted button-note">You can ask again in {wait} s.</span>
      )}
    </p>
  )
}
