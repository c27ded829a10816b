import type { ReactNode, RefObject } from 'react'
import { AppLink } from './app-link.tsx'
import { SupportReference } from './support-reference.tsx'

export interface ErrorAlertProps {
  /** The remote's BEM block (`form-alert` → `form-alert__message` …), styled by its own CSS. */
  block: string
  message: string
  /** A link to the next step (sign in again, say). */
  link?: { to: string; label: string } | undefined
  /** Offer to reload the page (the remote's code is out of date). */
  reload?: boolean
  /** The catalogue code: on the box as `data-code` for scripts and tests, never in the text. */
  code: string | null
  requestId?: string | undefined
  alertRef?: RefObject<HTMLDivElement | null> | undefined
  /** The page's own next steps, after the shared ones. */
  children?: ReactNode
}

/**
 * A failure: role=alert so it is read out when it appears, focusable so focus can move to it,
 * with the next step beside the sentence and the request id as small print for support.
 */
export function ErrorAlert({
  block,
  message,
  link,
  reload = false,
  code,
  requestId,
  alertRef,
  children,
}: ErrorAlertProps) {
  return (
    <div
      ref={alertRef}
      role="alert"
      tabIndex={-1}
      className={block}
      {...(code ? { 'data-code': code } : {})}
    >
      <p className={`${block}__message`}>{message}</p>
      {link && (
        <p className={`${block}__action`}>
          <AppLink to={link.to}>{link.label}</AppLink>
        </p>
      )}
      {reload && (
        <p className={`${block}__action`}>
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
      {requestId && <SupportReference requestId={requestId} className={`${block}__reference`} />}
    </div>
  )
}
