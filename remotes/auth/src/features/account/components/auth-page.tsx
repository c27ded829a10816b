import type { ReactNode } from 'react'
import { useHeadingFocus } from '@tessera/plugin-react/page'

export { HeadingFocusContext, Progress } from '@tessera/plugin-react/page'

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
  const headingRef = useHeadingFocus()
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
