import type { ReactNode, RefObject } from 'react'
import { AppLink } from '@tessera/plugin-react/app-link'
import { rateLimitSentence, type FormAlertContent } from '../../../lib/form-errors.ts'

interface FormAlertProps {
  alert: FormAlertContent | null
  alertRef: RefObject<HTMLDivElement | null>
  cooldown?: number
  /** Page-specific next steps (a resend button for an unconfirmed address, say). */
  children?: ReactNode
}

/**
 * The form-level error: role=alert so it is read out when it appears, focusable so focus can
 * move to it when no single field is to blame, with the next step beside the sentence.
 */
export function FormAlert({ alert, alertRef, cooldown = 0, children }: FormAlertProps) {
  if (alert === null) return null
  const message = alert.code === 'rate_limited' ? rateLimitSentence(cooldown) : alert.message
  return (
    <div ref={alertRef} role="alert" tabIndex={-1} className="form-alert">
      <p className="form-alert__message">{message}</p>
      {alert.action?.kind === 'link' && (
        <p className="form-alert__action">
          <AppLink to={alert.action.to}>{alert.action.label}</AppLink>
        </p>
      )}
      {alert.action?.kind === 'reload' && (
        <p className="form-alert__action">
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
      {alert.code && (
        <p className="form-alert__code">
          Code <code>{alert.code}</code>
          {alert.requestId && (
            <>
              {' '}
              · request <code>{alert.requestId}</code>
            </>
          )}
        </p>
      )}
    </div>
  )
}
