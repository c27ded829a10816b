import { createContext, use, useEffect, useRef } from 'react'
import type { ReactNode } from 'react'

/** Whether pages should take focus to their heading: true once the person moved between pages. */
export const HeadingFocusContext = createContext(false)

interface BillingPageProps {
  title: string
  intro?: ReactNode
  /**
   * A page whose heading announces a result (the checkout return page) passes that result here:
   * each time it changes, focus goes back to the heading so the new title is read out.
   */
  result?: string
  children?: ReactNode
}

/**
 * One billing page: its h1 and intro, then its content. After an in-app move between pages, focus
 * goes to the heading, as a page load would put it at the top, so screen readers announce it.
 */
export function BillingPage({ title, intro, result, children }: BillingPageProps) {
  const focusHeading = use(HeadingFocusContext)
  const headingRef = useRef<HTMLHeadingElement>(null)
  const shownResult = useRef(result)

  useEffect(() => {
    if (focusHeading) headingRef.current?.focus({ preventScroll: true })
  }, [focusHeading])

  useEffect(() => {
    if (result === shownResult.current) return
    shownResult.current = result
    headingRef.current?.focus({ preventScroll: true })
  }, [result])

  return (
    <div className="billing-page">
      <div className="billing-page__header">
        <h1 ref={headingRef} tabIndex={-1} className="billing-page__title">
          {title}
        </h1>
        {intro && <p className="billing-page__intro">{intro}</p>}
      </div>
      {children}
    </div>
  )
}

/** A polite progress line with a spinner, for pages waiting on the BFF. */
export function Progress({ children }: { children: ReactNode }) {
  return (
    <p className="progress" role="status">
      <span className="spinner" aria-hidden="true" />
      {children}
    </p>
  )
}
