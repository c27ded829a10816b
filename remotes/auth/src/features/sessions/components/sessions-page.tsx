import { useCallback, useEffect, useRef, useState } from 'react'
import type { DeviceSession, SignInMethod } from '@tessera/contracts/auth'
import { asApiError } from '@tessera/plugin-react/api-error'
import { authPaths } from '../../../lib/destinations.ts'
import { notifyFailure } from '../../../lib/notify-failure.ts'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useAuthApi } from '../../../lib/use-auth-api.ts'
import { AccountNav } from '../../account/components/account-nav.tsx'
import { AuthPage, Progress } from '../../account/components/auth-page.tsx'
import { RequireSignIn } from '../../account/components/require-sign-in.tsx'
import { signOut } from '../../sign-out/sign-out.ts'
import { formatDateTime, formatRelative } from '@tessera/plugin-react/format'

/** How a session signed in, as its row says it. */
const signInSentences: Record<SignInMethod, string> = {
  password: 'Signed in with a password',
  magic_link: 'Signed in with an email link',
  email_confirmation: 'Signed in by confirming the email address',
  password_reset: 'Signed in with a password-reset link',
}

/** "Chrome 141 on Linux": browser and system with their versions, or the stored label. */
export function sessionName(session: DeviceSession): string {
  // Checked loosely: a BFF older than these fields leaves them out.
  const { browser, os } = session
  if (browser && os) return `${browser} on ${os}`
  return browser || os || session.device
}

type ListState =
  | { status: 'loading' }
  | { status: 'ready'; sessions: DeviceSession[] }
  | { status: 'failed'; message: string }

/** `/auth/sessions`: every device signed in to the account, and a way to sign each out. */
export function SessionsPage() {
  return (
    <RequireSignIn title="Your sessions">
      <Sessions />
    </RequireSignIn>
  )
}

function Sessions() {
  const platform = usePlatform()
  const api = useAuthApi()
  const [list, setList] = useState<ListState>({ status: 'loading' })
  const [signingOutEverywhere, setSigningOutEverywhere] = useState(false)

  const load = useCallback(async () => {
    try {
      const body = await api.sessions()
      // The current device first, then the most recently seen.
      const sessions = [...body.sessions].sort(
        (a, b) => Number(b.current) - Number(a.current) || b.lastSeenAt.localeCompare(a.lastSeenAt),
      )
      setList({ status: 'ready', sessions })
    } catch (error) {
      const apiError = asApiError(error)
      if (apiError === null) console.error('The session list could not be loaded', error)
      setList({
        status: 'failed',
        message: apiError?.message ?? 'Your sessions could not be loaded. Try again in a moment.',
      })
    }
  }, [api])

  useEffect(() => {
    void load()
  }, [load])

  const revoked = async (session: DeviceSession) => {
    if (session.current) {
      // Revoking this device's session signed it out: the whole app follows.
      await platform.session.refresh()
      platform.notify({ kind: 'success', message: 'You are signed out on this device.' })
      platform.navigate(authPaths.signIn)
      return
    }
    platform.notify({ kind: 'success', message: `${sessionName(session)} is signed out.` })
    await load()
  }

  return (
    <AuthPage
      title="Your sessions"
      width="wide"
      intro="Devices and browsers signed in to your account. Sign out any you do not recognise."
    >
      <AccountNav />
      {list.status === 'loading' && <Progress>Loading your sessions…</Progress>}
      {list.status === 'failed' && (
        <div role="alert" className="form-alert">
          <p className="form-alert__message">{list.message}</p>
          <p className="form-alert__action">
            <button type="button" className="button button--secondary" onClick={() => void load()}>
              Try again
            </button>
          </p>
        </div>
      )}
      {list.status === 'ready' && (
        <>
          <ul className="session-list" aria-label="Signed-in devices">
            {list.sessions.map((session) => (
              <SessionRow key={session.id} session={session} onRevoked={revoked} />
            ))}
          </ul>
          <div className="card card--quiet">
            <h2>Sign out everywhere</h2>
            <p>
              Ends every session, including this one. You will need to sign in again on each device.
            </p>
            <button
              type="button"
              className="button button--danger"
              disabled={signingOutEverywhere}
              aria-busy={signingOutEverywhere}
              onClick={() => {
                setSigningOutEverywhere(true)
                void signOut(platform, api, 'global').then((done) => {
                  if (!done) setSigningOutEverywhere(false)
                })
              }}
            >
              {signingOutEverywhere && <span className="spinner" aria-hidden="true" />}
              {signingOutEverywhere ? 'Signing out…' : 'Sign out everywhere'}
            </button>
          </div>
        </>
      )}
    </AuthPage>
  )
}

interface SessionRowProps {
  session: DeviceSession
  onRevoked: (session: DeviceSession) => Promise<void>
}

/** One device, with a two-step sign-out: the first press asks, the second does it. */
export function SessionRow({ session, onRevoked }: SessionRowProps) {
  const platform = usePlatform()
  const api = useAuthApi()
  const [step, setStep] = useState<'idle' | 'confirming' | 'pending'>('idle')
  const confirmRef = useRef<HTMLButtonElement>(null)
  const askRef = useRef<HTMLButtonElement>(null)
  const returnFocus = useRef(false)

  useEffect(() => {
    if (step === 'confirming') confirmRef.current?.focus()
    if (step === 'idle' && returnFocus.current) {
      returnFocus.current = false
      askRef.current?.focus()
    }
  }, [step])

  const cancel = () => {
    returnFocus.current = true
    setStep('idle')
  }

  const revoke = async () => {
    if (step === 'pending') return
    setStep('pending')
    try {
      await api.revokeSession(session.id)
    } catch (error) {
      notifyFailure(platform, error, `${sessionName(session)} could not be signed out.`)
      returnFocus.current = true
      setStep('idle')
      return
    }
    await onRevoked(session)
  }

  const headingId = `session-${session.id}`
  const name = sessionName(session)
  const how = [
    session.signInMethod ? signInSentences[session.signInMethod] : null,
    session.lastSeenAddress ? `last seen from ${session.lastSeenAddress}` : null,
  ].filter((part) => part !== null)
  return (
    <li className={session.current ? 'session session--current' : 'session'}>
      <div className="session__facts">
        <p className="session__device" id={headingId}>
          {name}
          {session.current && <span className="badge">This device</span>}
        </p>
        {how.length > 0 && (
          <p className="session__how muted">
            {how.map((part, index) => (index === 0 ? part : ` · ${part}`))}
          </p>
        )}
        <p className="session__times muted">
          Last seen{' '}
          <time dateTime={session.lastSeenAt} title={formatDateTime(session.lastSeenAt)}>
            {formatRelative(session.lastSeenAt)}
          </time>{' '}
          · signed in <time dateTime={session.createdAt}>{formatDateTime(session.createdAt)}</time>
        </p>
      </div>
      <div className="session__actions">
        {step === 'idle' ? (
          <button
            ref={askRef}
            type="button"
            className="button button--secondary"
            onClick={() => setStep('confirming')}
            aria-describedby={headingId}
          >
            Sign out
          </button>
        ) : (
          <div
            className="session__confirm"
            role="group"
            aria-label={`Sign out ${name}?`}
            onKeyDown={(event) => {
              if (event.key === 'Escape' && step === 'confirming') {
                event.preventDefault()
                cancel()
              }
            }}
          >
            <p className="session__question">
              {session.current
                ? 'Sign out this device? You will need to sign in again here.'
                : `Sign out ${name}?`}
            </p>
            <button
              ref={confirmRef}
              type="button"
              className="button button--danger"
              disabled={step === 'pending'}
              aria-busy={step === 'pending'}
              onClick={() => void revoke()}
            >
              {step === 'pending' && <span className="spinner" aria-hidden="true" />}
              {step === 'pending' ? 'Signing out…' : 'Yes, sign out'}
            </button>
            <button
              type="button"
              className="button button--quiet"
              disabled={step === 'pending'}
              onClick={cancel}
            >
              Cancel
            </button>
          </div>
        )}
      </div>
    </li>
  )
}
