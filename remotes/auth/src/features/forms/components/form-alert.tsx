import type { ReactNode, RefObject } from 'react'
import { ErrorAlert } from '@tessera/plugin-react/error-alert'
import { rateLimitSentence, type FormAlertContent } from '../../../lib/form-errors.ts'

interface FormAlertProps {
  alert: FormAlertContent | null
  alertRef: RefObject<HTMLDivElement | null>
  cooldown?: number
  /** Page-specific next steps (a resend button for an unconfirmed address, say). */
  children?: ReactNode
}

/**
 * The form-level error, focused when no single field is to blame; for `rate_limited` it counts
 * down the wait.
 */
export function FormAlert({ alert, alertRef, cooldown = 0, children }: FormAlertProps) {
  if (alert === null) return null
  return (
    <ErrorAlert
      block="form-alert"
      message={alert.code === 'rate_limited' ? rateLimitSentence(cooldown) : alert.message}
      link={alert.action?.kind === 'link' ? alert.action : undefined}
      reload={alert.action?.kind === 'reload'}
      code={alert.code}
      requestId={alert.requestId}
      alertRef={alertRef}
    >
      {children}
    </ErrorAlert>
  )
}
