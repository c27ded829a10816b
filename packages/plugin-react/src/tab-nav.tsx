import { AppLink } from './app-link.tsx'
import { useRoute } from './platform.tsx'

export interface Tab {
  /** The app path the tab links to. */
  to: string
  /** The remote's route at which the tab is the current page. */
  route: string
  label: string
}

/**
 * Tabs between a remote's pages, the current one marked `aria-current="page"`. `className` is the
 * remote's own (its CSS is scoped to it at build time).
 */
export function TabNav({
  tabs,
  label,
  className,
}: {
  tabs: Tab[]
  label: string
  className: string
}) {
  const route = useRoute()
  return (
    <nav className={className} aria-label={label}>
      <ul>
        {tabs.map((tab) => (
          <li key={tab.to}>
            <AppLink to={tab.to} aria-current={route === tab.route ? 'page' : undefined}>
              {tab.label}
            </AppLink>
          </li>
        ))}
      </ul>
    </nav>
  )
}
