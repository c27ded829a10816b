import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react'
import type { LiveEventStatus, RegistrySnapshot } from '@tessera/contracts'
import { CommandPalette } from '../features/command-palette/command-palette.tsx'
import { HomePage } from '../features/home/home-page.tsx'
import { LandingPage } from '../features/landing/landing-page.tsx'
import { startRouteFor } from '../features/landing/start-route.ts'
import { SiteFooter } from '../features/legal/site-footer.tsx'
import { MainNav } from '../features/navigation/main-nav.tsx'
import { remoteLabel } from '../features/remotes/loader.ts'
import { overrideRequestFrom } from '../features/override-banner/override-link.ts'
import { UpdateNotice } from '../features/remote-updates/components/update-notice.tsx'
import { RemoteOutlet } from '../features/remotes/remote-outlet.tsx'
import { SessionPending } from '../features/session/session-pending.tsx'
import { useRouteGuard } from '../features/session/use-route-guard.ts'
import { ThemeToggle } from '../features/theme/theme-toggle.tsx'
import { ToastRegion } from '../features/toasts/toast-region.tsx'
import { LaterBoundary } from '../lib/later.tsx'
import { LoadingStatus } from '../lib/loading-status.tsx'
import { interceptPluginLinks, isPlainLeftClick } from '../lib/router/links.ts'
import { matchRoute, navRemotes, type RouteMatch } from '../lib/router/match-route.ts'
import { overrideArea, privacyPage, termsPage } from './later-parts.tsx'
import { NotAllowedPage } from './not-allowed-page.tsx'
import { NotFoundPage } from './not-found-page.tsx'
import { fetchSnapshot } from './snapshot.ts'
import { fillsSlot, holdsSlot } from '../features/slots/slot-area.tsx'
import type { Kernel } from './kernel.ts'

const SLOT_TARGET = { kind: 'slot', slot: 'header.end' } as const
const ROUTE_TARGET = { kind: 'route' } as const

function LiveStatus({ kernel }: { kernel: Kernel }) {
  const status = useSyncExternalStore<LiveEventStatus>(kernel.events.onStatus, kernel.events.status)
  if (status !== 'reconnecting') return null
  return (
    <p className="host-live-status" role="status">
      <span className="host-live-status__dot" aria-hidden="true" />
      Reconnecting…
    </p>
  )
}

/** A host page whose file could not be fetched: offline, or a release replaced it. */
function PageFailed() {
  return (
    <section className="host-page-message">
      <h1 className="host-page-message__title">This page could not be loaded</h1>
      <p className="host-page-message__body">Check your connection, then reload the page.</p>
      <button
        type="button"
        className="host-button host-button--primary"
        onClick={() => window.location.reload()}
      >
        Reload
      </button>
    </section>
  )
}

function Diagnostics({ snapshot }: { snapshot: RegistrySnapshot }) {
  const [open, setOpen] = useState(true)
  if (!open || snapshot.diagnostics.length === 0) return null
  return (
    <aside className="host-diagnostics" aria-label="Registry diagnostics">
      <div className="host-diagnostics__text">
        <strong>
          {snapshot.diagnostics.length === 1
            ? 'One registry entry was left out'
            : `${snapshot.diagnostics.length} registry entries were left out`}
        </strong>{' '}
        (shown in development builds only)
        <ul>
          {snapshot.diagnostics.map((diagnostic, index) => (
            <li key={index}>
              {diagnostic.remote && <code>{diagnostic.remote}</code>} {diagnostic.message}
            </li>
          ))}
        </ul>
      </div>
      <button
        type="button"
        className="host-button host-button--quiet"
        onClick={() => setOpen(false)}
      >
        Hide
      </button>
    </aside>
  )
}

/** The page's name in the tab's title, `<page> · Tessera`; null for the bare name. */
function pageTitleOf(match: RouteMatch): string | null {
  switch (match.kind) {
    case 'remote':
      return remoteLabel(match.remote)
    case 'not-found':
      return 'Page not found'
    case 'not-allowed':
      return 'Not allowed'
    case 'home':
      return 'Home'
    case 'host-page':
      return match.page === 'terms' ? 'Terms of use' : 'Privacy'
    default:
      return null
  }
}

interface FrameProps {
  kernel: Kernel
  snapshot: RegistrySnapshot
  showDiagnostics: boolean
}

/** The page frame: header with navigation and slots, the routed remote, toasts. */
export function Frame({ kernel, snapshot, showDiagnostics }: FrameProps) {
  const { router } = kernel
  const location = useSyncExternalStore(router.subscribe, router.current)
  const session = useSyncExternalStore(kernel.session.subscribe, kernel.session.current)
  const match = useMemo(
    () =>
      startRouteFor(
        matchRoute(location.pathname, snapshot.remotes, snapshot.restricted),
        location.pathname,
        session,
        snapshot.remotes,
      ),
    [location.pathname, snapshot.remotes, snapshot.restricted, session],
  )
  const [menuOpen, setMenuOpen] = useState(false)
  const mainRef = useRef<HTMLElement>(null)
  const navId = useId()
  const slotRemotes = snapshot.remotes.filter((remote) => fillsSlot(remote, 'header.end', session))
  const homePath = navRemotes(snapshot.remotes)[0]?.basePath ?? null
  const guard = useRouteGuard(router, kernel.session, location, match, snapshot.remotes)
  const readSnapshot = useCallback(() => fetchSnapshot(kernel.client), [kernel.client])
  // The override area's code is fetched for a preview link or an override already on; once
  // shown it stays, as before its file was split off.
  const overridesWanted =
    overrideRequestFrom(location.search) !== null ||
    snapshot.remotes.some((remote) => remote.override !== undefined)
  const [overridesShown, setOverridesShown] = useState(overridesWanted)
  if (overridesWanted && !overridesShown) setOverridesShown(true)

  useEffect(() => {
    if (match.kind === 'redirect') router.navigate(match.to, { replace: true })
  }, [match, router])

  useLayoutEffect(() => kernel.slots.setRemotes(snapshot.remotes), [kernel, snapshot.remotes])

  useEffect(() => {
    const page = pageTitleOf(match)
    document.title =
      match.kind === 'landing'
        ? 'Tessera · An AI assistant, free to start'
        : page
          ? `${page} · Tessera`
          : 'Tessera'
  }, [match])

  useEffect(() => interceptPluginLinks(document, router), [router])

  useEffect(() => {
    if (!menuOpen) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false)
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [menuOpen])

  const navigate = (to: string) => {
    setMenuOpen(false)
    router.navigate(to)
    // Move focus to the new content, as a page load would, so keyboard and screen-reader users
    // are not left on a link in the header.
    mainRef.current?.focus({ preventScroll: true })
    window.scrollTo({ top: 0 })
  }

  return (
    <div className="host-frame">
      <a className="host-skip-link" href="#host-main">
        Skip to content
      </a>
      {overridesShown && (
        <LaterBoundary loading={null} failed={null}>
          <overrideArea.Component client={kernel.client} router={router} snapshot={snapshot} />
        </LaterBoundary>
      )}
      <header className="host-header">
        <div className="host-header__inner">
          <button
            type="button"
            className="host-icon-button host-menu-button"
            aria-expanded={menuOpen}
            aria-controls={navId}
            onClick={() => setMenuOpen((open) => !open)}
          >
            <svg
              viewBox="0 0 24 24"
              width="20"
              height="20"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              aria-hidden="true"
            >
              {menuOpen ? <path d="M6 6l12 12M18 6 6 18" /> : <path d="M4 7h16M4 12h16M4 17h16" />}
            </svg>
            <span className="host-visually-hidden">Menu</span>
          </button>
          {/* `/` is the landing page for visitors and the first page of the app once signed in. */}
          <a
            className="host-brand"
            href="/"
            onClick={(event) => {
              if (!isPlainLeftClick(event)) return
              event.preventDefault()
              navigate('/')
            }}
          >
            <span className="host-brand__mark" aria-hidden="true" />
            <span className="host-brand__text">Tessera</span>
          </a>
          <MainNav
            id={navId}
            remotes={snapshot.remotes}
            pathname={location.pathname}
            open={menuOpen}
            onNavigate={navigate}
          />
          <div className="host-header__end">
            <LiveStatus kernel={kernel} />
            {slotRemotes.length > 0 && (
              <div className="host-slots">
                {slotRemotes.map((remote) => (
                  <RemoteOutlet
                    key={remote.name}
                    remote={remote}
                    target={SLOT_TARGET}
                    hold={holdsSlot(remote, 'header.end', session)}
                  />
                ))}
              </div>
            )}
            <ThemeToggle theme={kernel.theme} />
          </div>
        </div>
      </header>
      <UpdateNotice
        events={kernel.events}
        snapshot={snapshot}
        fetchSnapshot={readSnapshot}
        reload={() => window.location.reload()}
      />
      <main className="host-main" id="host-main" ref={mainRef} tabIndex={-1}>
        {import.meta.env.DEV && showDiagnostics && <Diagnostics snapshot={snapshot} />}
        {match.kind === 'remote' && guard.kind === 'pass' && (
          <RemoteOutlet key={match.remote.name} remote={match.remote} target={ROUTE_TARGET} />
        )}
        {match.kind === 'remote' && guard.kind !== 'pass' && <SessionPending />}
        {match.kind === 'home' && <HomePage remotes={snapshot.remotes} session={kernel.session} />}
        {match.kind === 'landing' && <LandingPage onNavigate={navigate} />}
        {match.kind === 'landing-pending' && <SessionPending />}
        {match.kind === 'host-page' && (
          <LaterBoundary
            key={match.page}
            loading={<LoadingStatus>Loading the page…</LoadingStatus>}
            failed={<PageFailed />}
          >
            {match.page === 'terms' ? (
              <termsPage.Component onNavigate={navigate} />
            ) : (
              <privacyPage.Component onNavigate={navigate} />
            )}
          </LaterBoundary>
        )}
        {match.kind === 'not-found' && (
          <NotFoundPage pathname={match.pathname} homePath={homePath} onNavigate={navigate} />
        )}
        {match.kind === 'not-allowed' && (
          <NotAllowedPage homePath={homePath} onNavigate={navigate} />
        )}
        {match.kind === 'empty' && (
          <section className="host-page-message">
            <h1 className="host-page-message__title">Nothing to show yet</h1>
            <p className="host-page-message__body">
              No apps are available right now. Try again in a minute, or ask your administrator.
            </p>
          </section>
        )}
      </main>
      {(match.kind === 'landing' || match.kind === 'host-page') && (
        <SiteFooter pathname={location.pathname} onNavigate={navigate} />
      )}
      <CommandPalette remotes={snapshot.remotes} navigate={navigate} />
      <ToastRegion notices={kernel.notices} />
    </div>
  )
}
