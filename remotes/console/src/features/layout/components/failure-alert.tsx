import type { ReactNode, RefObject } from 'react'
import { ErrorAlert } from '@tessera/plugin-react/error-alert'
import { usePlatform } from '@tessera/plugin-react/platform'
import type { Failure } from '../../../lib/failure.ts'
import { otherPaths, withNext } from '../../../lib/paths.ts'

interface FailureAlertProps {
  failure: Failure
  alertRef?: RefObject<HTMLDivElement | null>
  /** Offer to read again (a page whose data could not be loaded). */
  onRetry?: () => void
  /** The page's own next step for the failure. */
  children?: ReactNode
}

/** A console failure as an alert: the sentence, the next step, the code small for support. */
export function FailureAlert({ failure, alertRef, onRetry, children }: FailureAlertProps) {
  const platform = usePlatform()
  const here = platform.location?.href() ?? `${platform.basePath}${platform.route.current()}`
  return (
    <ErrorAlert
      block="failure"
      message={failure.message}
      link={
        failure.action === 'sign-in'
          ? { to: withNext(otherPaths.signIn, here), label: 'Sign in again' }
          : undefined
      }
      reload={failure.action === 'reload'}
      code={failure.code}
      requestId={failure.requestId}
      alertRef={alertRef}
    >
      {onRetry && (
        <p className="failure__action">
          <button type="button" className="button button--secondary" onClick={onRetry}>
            Try again
          </button>
        </p>
      )}
      {children}
    </ErrorAlert>
  )
}
