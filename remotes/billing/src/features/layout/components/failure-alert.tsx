import type { ReactNode, RefObject } from 'react'
import { ErrorAlert } from '@tessera/plugin-react/error-alert'
import type { Failure } from '../../../lib/failure.ts'
import { otherPaths, withNext } from '../../../lib/paths.ts'

interface FailureAlertProps {
  failure: Failure
  alertRef?: RefObject<HTMLDivElement | null>
  /** The page to come back to after signing in again. */
  returnTo: string
  /** The page's own next step for the failure (open the portal, try again). */
  children?: ReactNode
}

/** A billing failure as an alert, with the way back in when the session has ended. */
export function FailureAlert({ failure, alertRef, returnTo, children }: FailureAlertProps) {
  return (
    <ErrorAlert
      block="failure"
      message={failure.message}
      link={
        failure.action === 'sign-in'
          ? { to: withNext(otherPaths.signIn, returnTo), label: 'Sign in again' }
          : undefined
      }
      reload={failure.action === 'reload'}
      code={failure.code}
      requestId={failure.requestId}
      alertRef={alertRef}
    >
      {children}
    </ErrorAlert>
  )
}
