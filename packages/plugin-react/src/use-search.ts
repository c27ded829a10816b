import type { Platform } from '@tessera/contracts/platform'
import { useMemo, useSyncExternalStore } from 'react'

// Module state: each remote bundles its own copy of this package, so a remote hears only its own
// navigations (plus the browser's Back and Forward, which every remote should hear).
const listeners = new Set<() => void>()

/**
 * Says the address may have changed. The platform reports path changes only, so a move to the
 * same page with another query (`/billing/plans?checkout=cancelled` → `/billing/plans`) is
 * announced here by the remote's own navigations (see `withAnnouncedNavigation`) and by the
 * browser's Back and Forward.
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

/**
 * The platform with its `navigate` announced, so pages reading the query see query-only changes
 * (the host's route subscription only reports path changes).
 */
export function withAnnouncedNavigation(platform: Platform): Platform {
  return {
    ...platform,
    navigate(to, options) {
      platform.navigate(to, options)
      announceNavigation()
    },
  }
}
