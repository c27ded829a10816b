import { useEffect, useId } from 'react'
import { usePlatform } from '@tessera/plugin-react/platform'
import { useOpenPortal } from '../../portal/use-open-portal.ts'
import '../past-due.css'

/**
 * The full banner on the billing pages while a payment has failed: what happened, what it means
 * for the plan, and the button that opens the portal to fix it.
 */
export function PastDueBanner({ planName }: { planName: string }) {
  const headingId = useId()
  const portal = useOpenPortal()
  return (
    <section className="past-due-banner" aria-labelledby={headingId}>
      <span className="past-due-banner__icon" aria-hidden="true">
        !
      </span>
      <div className="past-due-banner__body">
        <h2 id={headingId} className="past-due-banner__title">
          Your last payment failed
        </h2>
        <p>
          You still have {planName} while Stripe retries the payment. Update your card so your plan
          does not end.
        </p>
        {portal.failure && (
          <p className="past-due-banner__error" role="alert">
            {portal.failure.message}
          </p>
        )}
      </div>
      <button
        type="button"
        className="button button--danger past-due-banner__button"
        disabled={portal.opening}
        aria-busy={portal.opening}
        onClick={() => void portal.open()}
      >
        {portal.opening && <span className="spinner" aria-hidden="true" />}
        {portal.opening ? 'Opening the billing portal…' : 'Fix payment'}
      </button>
    </section>
  )
}

/**
 * The header's compact form of the banner, shown on every page: a danger pill whose button opens
 * the portal. A failure to open it is told as a notice, as the header has no room for sentences.
 */
export function PastDueNotice() {
  const platform = usePlatform()
  const portal = useOpenPortal()
  const { failure, dismiss } = portal
  useEffect(() => {
    if (failure === null) return
    platform.notify({
      kind: 'error',
      message: failure.message,
      ...(failure.code ? { code: failure.code } : {}),
    })
    dismiss()
  }, [failure, dismiss, platform])
  return (
    <div className="past-due-notice">
      <span className="past-due-notice__icon" aria-hidden="true">
        !
      </span>
      <span className="past-due-notice__text">Payment failed</span>
      <button
        type="button"
        className="past-due-notice__button"
        disabled={portal.opening}
        aria-busy={portal.opening}
        onClick={() => void portal.open()}
      >
        {portal.opening && <span className="spinner" aria-hidden="true" />}
        {portal.opening ? (
          'Opening…'
        ) : (
          <>
            Fix<span className="past-due-notice__more"> payment</span>
          </>
        )}
      </button>
    </div>
  )
}
