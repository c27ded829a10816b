import type { ReactNode } from 'react'
import { useHeadingFocus } from '@tessera/plugin-react/page'

export { HeadingFocusContext, Progress } from '@tessera/plugin-react/page'

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
  const headingRef = useHeadingFocus(result)
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
