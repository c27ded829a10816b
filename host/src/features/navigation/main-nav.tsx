import { subPathOf, type SnapshotRemote } from '@tessera/contracts'
import { isPlainLeftClick } from '../../lib/router/links.ts'
import { navRemotes } from '../../lib/router/match-route.ts'
import { remoteLabel } from '../remotes/loader.ts'
import { prefetchRemote } from '../remotes/preload-links.ts'

interface MainNavProps {
  id: string
  remotes: readonly SnapshotRemote[]
  pathname: string
  /** On narrow screens the list is behind the menu button; this says whether it is showing. */
  open: boolean
  onNavigate(to: string): void
}

/**
 * The main navigation, drawn from the snapshot alone: labels and order come from each remote's
 * descriptor, so no remote code is needed to show it.
 */
export function MainNav({ id, remotes, pathname, open, onNavigate }: MainNavProps) {
  const items = navRemotes(remotes)
  return (
    <nav id={id} className="host-nav" aria-label="Main" data-open={open}>
      <ul className="host-nav__list">
        {items.map((remote) => {
          const active = subPathOf(pathname, remote.basePath) !== null
          // Intent to visit: the remote's first files start downloading before the click.
          const prefetch = () => void prefetchRemote(document, remote)
          return (
            <li key={remote.name} className="host-nav__item">
              <a
                className="host-nav__link"
                href={remote.basePath}
                aria-current={active ? 'page' : undefined}
                onPointerEnter={prefetch}
                onFocus={prefetch}
                onClick={(event) => {
                  if (event.defaultPrevented || !isPlainLeftClick(event)) return
                  event.preventDefault()
                  onNavigate(remote.basePath)
                }}
              >
                {remoteLabel(remote)}
              </a>
            </li>
          )
        })}
      </ul>
    </nav>
  )
}
