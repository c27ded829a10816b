import { useMemo, useSyncExternalStore } from 'react'

const listeners = new Set<() => void>()

/**
 * Says the address may have changed. The platform reports path changes only, so a move to the
 * same page with another query (`/billing/plans?checkout=cancelled` → `/billing/plans`) is announced here by
 * this remote's own navigations (see announce-navigation.ts) and by the browser's Back and Forward.
 */
export function announceNavigation(): void {
  for (const listener of [...listeners]) listener()
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  window.addEventListener('popstate', listener)
  return () => {
    listeners.delete(listener)
    window.removeEventListener('popstate', listener)
  }
}

const readSearch = () => window.location.search

/** The query of the current address. */
export function useSearchParams(): URLSearchParams {
  const search = useSyncExternalStore(subscribe, readSearch)
  return useMemo(() => new URLSearchParams(search), [search])
}
