import { normalisePath } from '@tessera/contracts'

/** The current location as the router sees it: a path plus whatever query and hash came with it. */
export interface Location {
  pathname: string
  search: string
  hash: string
}

export interface Router {
  current(): Location
  /** Goes to an app path without a page load; `replace` rewrites the current history entry. */
  navigate(to: string, options?: { replace?: boolean }): void
  subscribe(listener: (location: Location) => void): () => void
  /** Stops listening to the browser (tests, hot reload). */
  dispose(): void
}

/** The slice of `window` the router needs, so tests can hand in a fake one. */
export interface RouterWindow {
  location: { pathname: string; search: string; hash: string; origin: string }
  history: Pick<History, 'pushState' | 'replaceState'>
  addEventListener(type: 'popstate', listener: () => void): void
  removeEventListener(type: 'popstate', listener: () => void): void
}

/**
 * A History-API router small enough to read in one go: the host only needs "which base path are we
 * under" and "tell me when that changes"; everything below a base path belongs to its plugin.
 */
export function createRouter(win: RouterWindow): Router {
  const listeners = new Set<(location: Location) => void>()
  let location = read()

  function read(): Location {
    return {
      pathname: normalisePath(win.location.pathname),
      search: win.location.search,
      hash: win.location.hash,
    }
  }

  function update(): void {
    const next = read()
    if (
      next.pathname === location.pathname &&
      next.search === location.search &&
      next.hash === location.hash
    ) {
      return
    }
    location = next
    for (const listener of [...listeners]) listener(location)
  }

  const onPopState = (): void => update()
  win.addEventListener('popstate', onPopState)

  return {
    current: () => location,
    navigate(to, options = {}) {
      const url = new URL(to, win.location.origin + location.pathname)
      if (url.origin !== win.location.origin) {
        throw new Error(`navigate() only goes to paths of this app, not to ${url.origin}`)
      }
      const target = `${normalisePath(url.pathname)}${url.search}${url.hash}`
      const here = `${location.pathname}${location.search}${location.hash}`
      // Going to where we already are must not stack duplicate history entries.
      if (options.replace || target === here) win.history.replaceState(null, '', target)
      else win.history.pushState(null, '', target)
      update()
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    dispose() {
      win.removeEventListener('popstate', onPopState)
      listeners.clear()
    },
  }
}
