import { useCallback, useEffect, useRef, useState } from 'react'
import type { ConfirmType, SignedIn } from '@tessera/contracts/auth'
import { AppLink } from '@tessera/plugin-react/app-link'
import { asApiError, retryAfterOf } from '@tessera/plugin-react/api-error'
import type { AuthApi } from '../../../lib/auth-api.ts'
import { authPaths, DEFAULT_DESTINATION } from '../../../lib/destinations.ts'
import { safeNextPath } from '../../../lib/next-path.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { AuthPage, Progress } from '../../account/components/auth-page.tsx'

const linkTypes: readonly ConfirmType[] = [
  'signup',
  'magiclink',
  'recovery',
  'email_change',
  'email',
]
const isLinkType = (value: string | null): value is ConfirmType =>
  value !== null && (linkTypes as readonly string[]).includes(value)
const tokenPattern = /^[A-Za-z0-9_-]{1,128}$/

type ConfirmState =
  | { status: 'working' }
  | { status: 'done'; message: string }
  | {
      status: 'failed'
      reason: 'incomplete' | 'expired' | 'rate-limited' | 'other'
      message: string
    }

/** What each kind of link is for, in the words of its pages. */
const wording: Record<ConfirmType, { working: string; title: string }> = {
  signup: { working: 'Confirming your email address…', title: 'Confirming your email' },
  email: { working: 'Confirming your email address…', title: 'Confirming your email' },
  magiclink: { working: 'Signing you in…', title: 'Signing you in' },
  recovery: { working: 'Checking your reset link…', title: 'Resetting your password' },
  email_change: { working: 'Confirming your new email address…', title: 'Changing your email' },
}

/** The next step offered when a link of this type cannot be used. */
const recoverySteps: Record<ConfirmType, { label: string; to: string }> = {
  signup: { label: 'Send me a new confirmation link', to: authPaths.magicLink },
  email: { label: 'Send me a new confirmation link', to: authPaths.magicLink },
  magiclink: { label: 'Send me a new sign-in link', to: authPaths.magicLink },
  recovery: { label: 'Ask for a new reset link', to: authPaths.forgotPassword },
  email_change: { label: 'Change your email again from your profile', to: authPaths.profile },
}

// One redemption per token for the page's lifetime: a link works once, and React's StrictMode
// (or a remount) must not spend it twice and then report the second try as "already used".
const redemptions = new Map<string, Promise<SignedIn>>()

function redeem(api: AuthApi, tokenHash: string, type: ConfirmType): Promise<SignedIn> {
  const key = `${type}:${tokenHash}`
  let redemption = redemptions.get(key)
  if (redemption === undefined) {
    redemption = api.confirm({ tokenHash, type })
    // A failure may be worth retrying (a network blip), so only success stays remembered.
    redemption.catch(() => redemptions.delete(key))
    redemptions.set(key, redemption)
  }
  return redemption
}

/** Where a redeemed link leads: recovery to the new-password page, others to `next` or a default. */
function destinationFor(type: ConfirmType, next: string | null): string {
  if (type === 'recovery') return authPaths.resetPassword
  if (next !== null) return next
  return type === 'email_change' ? authPaths.profile : DEFAULT_DESTINATION
}

function successMessage(type: ConfirmType, body: SignedIn): string {
  switch (type) {
    case 'recovery':
      return 'Your reset link worked. Choose a new password.'
    case 'email_change':
      return body.user.pendingEmail
        ? `Confirmed. Now open the link we sent to ${body.user.pendingEmail} to finish the change.`
        : `Your email address is now ${body.user.email}.`
    case 'magiclink':
      return `Signed in as ${body.user.displayName ?? body.user.email}.`
    default:
      return 'Your email address is confirmed. Welcome to Tessera.'
  }
}

/**
 * `/auth/confirm?token_hash=…&type=…&next=…`: the page every email link opens. It redeems the
 * link with the BFF, then moves on, replacing itself in history so Back does not spend it again.
 */
export function ConfirmPage() {
  const platform = usePlatform()
  const api = useAuthApi()
  // The link as opened: read once, since moving on changes the address before this unmounts.
  const [link] = useState(() => {
    const search = new URLSearchParams(window.location.search)
    return {
      tokenHash: search.get('token_hash'),
      rawType: search.get('type'),
      next: safeNextPath(search.get('next'), window.location.origin),
    }
  })
  const { tokenHash, rawType, next } = link
  const type: ConfirmType = isLinkType(rawType) ? rawType : 'signup'
  const [state, setState] = useState<ConfirmState>({ status: 'working' })
  const [attempt, setAttempt] = useState(0)
  const alertRef = useRef<HTMLDivElement>(null)

  const complete = useCallback(
    async (body: SignedIn) => {
      const message = successMessage(type, body)
      setState({ status: 'done', message })
      platform.notify({ kind: 'success', message })
      await platform.session.refresh()
      platform.navigate(destinationFor(type, next), { replace: true })
    },
    [platform, type, next],
  )

  useEffect(() => {
    if (tokenHash === null || !tokenPattern.test(tokenHash) || !isLinkType(rawType)) {
      setState({
        status: 'failed',
        reason: 'incomplete',
        message:
          'This link is incomplete or damaged. Open it again from the email, or copy the whole address into the browser.',
      })
      return
    }
    let current = true
    setState({ status: 'working' })
    redeem(api, tokenHash, rawType).then(
      (body) => {
        if (current) void complete(body)
      },
      (error: unknown) => {
        if (!current) return
        const apiError = asApiError(error)
        if (apiError === null) console.error('An email link could not be redeemed', error)
        if (apiError?.code === 'validation_failed') {
          setState({
            status: 'failed',
            reason: 'incomplete',
            message: 'This link is incomplete or damaged. Open it again from the email.',
          })
        } else if (apiError?.code === 'link_expired') {
          setState({
            status: 'failed',
            reason: 'expired',
            message:
              'This link has expired or has already been used. Links work once, for a limited time.',
          })
        } else if (apiError?.code === 'rate_limited') {
          const seconds = retryAfterOf(apiError.details) ?? 30
          setState({
            status: 'failed',
            reason: 'rate-limited',
            message: `Too many attempts in a short time. Wait ${seconds} seconds, then try again.`,
          })
        } else {
          setState({
            status: 'failed',
            reason: 'other',
            message: apiError?.message ?? 'Something went wrong while opening the link. Try again.',
          })
        }
      },
    )
    return () => {
      current = false
    }
  }, [api, tokenHash, rawType, complete, attempt])

  useEffect(() => {
    if (state.status === 'failed') alertRef.current?.focus()
  }, [state.status])

  const step = recoverySteps[type]
  return (
    <AuthPage title={state.status === 'failed' ? 'This link did not work' : wording[type].title}>
      {state.status === 'working' && <Progress>{wording[type].working}</Progress>}
      {state.status === 'done' && <Progress>{state.message} Taking you on…</Progress>}
      {state.status === 'failed' && (
        <div ref={alertRef} role="alert" tabIndex={-1} className="form-alert">
          <p className="form-alert__message">{state.message}</p>
          <p className="form-alert__action">
            {state.reason === 'rate-limited' || state.reason === 'other' ? (
              <button
                type="button"
                className="button button--secondary"
                onClick={() => setAttempt((n) => n + 1)}
              >
                Try again
              </button>
            ) : (
              <AppLink className="button button--primary" to={step.to}>
                {step.label}
              </AppLink>
            )}
          </p>
          <p className="form-alert__action">
            Already confirmed? <AppLink to={authPaths.signIn}>Sign in</AppLink>
          </p>
        </div>
      )}
    </AuthPage>
  )
}
