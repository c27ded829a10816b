import { createContext, use, useEffect, useRef } from 'react'
import type { ReactNode, RefObject } from 'react'

/** Whether pages should take focus to their heading: true once the person moved between pages. */
export const HeadingFocusContext = createContext(false)

/**
 * The ref for a page's h1 (give it `tabIndex={-1}`). After an in-app move between pages, focus
 * goes to the heading, as a page load would put it at the top, so screen readers announce it. A
 * page whose heading announces a result passes that result: each time it changes, focus goes back
 * to the heading so the new title is read out.
 */
export function useHeadingFocus(result?: string): RefObject<HTMLHeadingElement | null> {
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

  return headingRef
}

/**
 * A polite progress line with a spinner, for pages waiting on the BFF. The spinner is styled by
 * the kit's base.css, the `progress` line by each remote's own CSS.
 */
export function Progress({ children }: { children: ReactNode }) {
  return (
    <p className="progress" role="status">
      <span className="spinner" aria-hidden="true" />
      {children}
    </p>
  )
}
