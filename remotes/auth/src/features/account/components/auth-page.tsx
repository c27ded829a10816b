import { createContext, use, useEffect, useRef } from 'react'
import type { ReactNode } from 'react'

/** Whether pages should take focus to their heading: true once the person moved between pages. */
export const HeadingFocusContext = createContext(false)

interface AuthPageProps {
  title: string
  intro?: ReactNode
  /** `narrow` for the sign-in style forms, `wide` for the account pages. */
  width?: 'narrow' | 'wide'
  children?: ReactNode
}

/**
 * One auth page: its h1 and intro, then its content. After an in-app move between pages, focus
 * goes to the heading, as a page load would put it at the top, so screen readers announce it.
 */
export function AuthPage({ title, intro, width = 'narrow', children }: AuthPageProps) {
  const focusHeading = use(HeadingFocusContext)
  const headingRef = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    if (focusHeading) headingRef.current?.focus({ preventScroll: true })
  }, [focusHeading])
  return (
    <div className={`auth-page auth-page--${width}`}>
      <div className="auth-page__header">
        <h1 ref={headingRef} tabIndex={-1} className="auth-page__title">
          {title}
        </h1>
        {intro && <p className="auth-page__intro">{intro}</p>}
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
