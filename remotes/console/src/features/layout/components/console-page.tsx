import type { ReactNode } from 'react'
import { useHeadingFocus } from '@tessera/plugin-react/page'
import { ConsoleNav } from './console-nav.tsx'

export { HeadingFocusContext, Progress } from '@tessera/plugin-react/page'

interface ConsolePageProps {
  title: string
  intro?: ReactNode
  /** Beside the title: the page's own controls (a refresh line, an export link). */
  aside?: ReactNode
  children?: ReactNode
}

/**
 * One console page: the console's tabs, its h1 and intro, then its content. After an in-app move
 * between pages, focus goes to the heading, as a page load would, so screen readers announce it.
 */
export function ConsolePage({ title, intro, aside, children }: ConsolePageProps) {
  const headingRef = useHeadingFocus()
  return (
    <div className="console-page">
      <ConsoleNav />
      <div className="console-page__header">
        <div className="console-page__titles">
          <h1 ref={headingRef} tabIndex={-1} className="console-page__title">
            {title}
          </h1>
          {intro && <p className="console-page__intro">{intro}</p>}
        </div>
        {aside && <div className="console-page__aside">{aside}</div>}
      </div>
      {children}
    </div>
  )
}
