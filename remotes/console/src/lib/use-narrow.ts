import { useSyncExternalStore } from 'react'

/** Below this width a table becomes a stacked list (phones: 390 px and so on). */
const NARROW = '(max-width: 560px)'

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(NARROW)
  query.addEventListener('change', onChange)
  return () => query.removeEventListener('change', onChange)
}

const read = () => window.matchMedia(NARROW).matches

/**
 * Whether the window is phone-narrow. Tables that would hide their important columns behind a
 * horizontal scroll there are drawn as stacked lists instead (one item per row, each value with
 * its label), so nothing is both rendered and hidden.
 */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, read, () => false)
}
