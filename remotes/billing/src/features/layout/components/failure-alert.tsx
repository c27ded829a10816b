import type { ReactNode, RefObject } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
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

/**
 * A failure: role=alert so it is read out when it appears, focusable so focus can move to it,
 * with the next step beside the sentence and the code small for support.
 */
export function FailureAlert({ failure, alertRef, returnTo, children }: FailureAlertProps) {
  return (
    <div ref={alertRef} role="alert" tabIndex={-1} className="failure">
      <p className="failure__message">{failure.message}</p>
      {failure.action === 'sign-in' && (
        <p className="failure__action">
          <AppLink to={withNext(otherPaths.signIn, returnTo)}>Sign in again</AppLink>
        </p>
      )}
      {failure.action === 'reload' && (
        <p className="failure__action">
          <button
            type="button"
            className="button button--secondary"
            onClick={() => location.reload()}
          >
            Reload the page
          </button>
        </p>
      )}
      {children}
      {failure.code && (
        <p className="failure__code">
          Code <code>{failure.code}</code>
          {failure.requestId && (
            <>
              {' '}
              · request <code>{failure.requestId}</code>
            </>
          )}
        </p>
      )}
    </div>
  )
}
