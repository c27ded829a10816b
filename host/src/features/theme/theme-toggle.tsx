import { useSyncExternalStore } from 'react'
import type { ThemeStore } from '../../lib/platform/theme.ts'

/** The header's light/dark switch; the choice is remembered by the theme store. */
export function ThemeToggle({ theme }: { theme: ThemeStore }) {
  const current = useSyncExternalStore(theme.subscribe, theme.current)
  const next = current === 'dark' ? 'light' : 'dark'
  return (
    <button
      type="button"
      className="host-icon-button"
      onClick={() => theme.toggle()}
      aria-label={`Switch to ${next} theme`}
      title={`Switch to ${next} theme`}
    >
      {current === 'dark' ? (
        <svg
          viewBox="0 0 24 24"
          width="18"
          height="18"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          aria-hidden="true"
        >
          <circle cx="12" cy="12" r="4" />
          <path d="M12 2v2m0 16v2M4.9 4.9l1.4 1.4m11.4 11.4 1.4 1.4M2 12h2m16 0h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
        </svg>
      ) : (
        <svg
          viewBox="0 0 24 24"
          width="18"
          height="18"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          aria-hidden="true"
        >
          <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8Z" />
        </svg>
      )}
    </button>
  )
}
