import { useEffect, useState } from 'react'
import type { Usage } from '@tessera/contracts/assistant'
import { AppLink } from '@tessera/plugin-react/app-link'
import { usePlatform } from '@tessera/plugin-react/platform'
import { SupportReference } from '@tessera/plugin-react/support-reference'
import { waitSentence, type ChatError } from '../../../lib/chat-errors.ts'
import { formatCount } from '@tessera/plugin-react/format'
import { quotaSentence } from '../../../lib/quota.ts'
import { billingPlansPath } from '../../../lib/paths.ts'

interface FailurePanelProps {
  error: ChatError
  onRetry: () => void
  onEdit: () => void
  onNewConversation: () => void
  /** This month's usage, when known: a quota failure says how much is left. */
  usage: Usage | null
}

/** Counts down from `seconds` to zero, once a second. */
function useCountdown(seconds: number | null): number {
  const [left, setLeft] = useState(seconds ?? 0)
  useEffect(() => {
    setLeft(seconds ?? 0)
    if (seconds === null || seconds <= 0) return
    const started = Date.now()
    const timer = setInterval(() => {
      const remaining = Math.max(0, seconds - Math.floor((Date.now() - started) / 1000))
      setLeft(remaining)
      if (remaining === 0) clearInterval(timer)
    }, 250)
    return () => clearInterval(timer)
  }, [seconds])
  return left
}

/**
 * Why the last send failed, said as a sentence with its next step beside it: Try again, Edit the
 * message, See plans, Sign in. Announced as an alert when it appears.
 */
export function FailurePanel({
  error,
  onRetry,
  onEdit,
  onNewConversation,
  usage,
}: FailurePanelProps) {
  const platform = usePlatform()
  const wait = useCountdown(error.retryAfterSeconds)
  const actions = new Set(error.actions)
  // The limit when the refusal came: a higher one since (an upgrade) means trying again may work.
  const [limitThen] = useState(() => usage?.limit ?? null)
  const raised = usage !== null && limitThen !== null && usage.limit > limitThen
  const quota =
    error.code !== 'quota_exceeded' || usage === null
      ? null
      : raised
        ? {
            nothingLeft: false,
            message: `Your plan now includes ${formatCount(usage.limit)} tokens a month. Send the message again.`,
          }
        : quotaSentence(usage)
  if (raised && quota !== null) {
    actions.delete('plans')
    actions.delete('new-conversation')
    actions.add('retry')
  } else if (quota !== null && !quota.nothingLeft) actions.add('new-conversation')
  const here = typeof window === 'undefined' ? platform.basePath : window.location.pathname
  const message =
    error.code === 'rate_limited' && error.retryAfterSeconds !== null
      ? `You are sending messages faster than your plan allows. ${waitSentence(wait)}`
      : error.code === 'model_busy' && error.retryAfterSeconds !== null
        ? `The assistant is busy right now. ${waitSentence(wait)}`
        : (quota?.message ?? error.message)

  return (
    <div className="failure" role="alert" {...(error.code ? { 'data-code': error.code } : {})}>
      <p className="failure__message">{message}</p>
      <div className="failure__actions">
        {actions.has('retry') && (
          <button
            type="button"
            className="button button--primary"
            onClick={onRetry}
            disabled={wait > 0}
          >
            {wait > 0 ? `Try again (${wait} s)` : 'Try again'}
          </button>
        )}
        {actions.has('edit') && (
          <button type="button" className="button button--primary" onClick={onEdit}>
            Edit the message
          </button>
        )}
        {actions.has('plans') && (
          <AppLink to={billingPlansPath} className="button button--primary">
            See plans
          </AppLink>
        )}
        {actions.has('sign-in') && (
          <AppLink
            to={`/auth/sign-in?${new URLSearchParams({ next: here }).toString()}`}
            className="button button--primary"
          >
            Sign in
          </AppLink>
        )}
        {actions.has('reload') && (
          <button
            type="button"
            className="button button--primary"
            onClick={() => location.reload()}
          >
            Reload the page
          </button>
        )}
        {actions.has('new-conversation') && (
          <button type="button" className="button button--secondary" onClick={onNewConversation}>
            Start a new conversation
          </button>
        )}
      </div>
      {error.requestId && (
        <SupportReference requestId={error.requestId} className="failure__reference" />
      )}
    </div>
  )
}
