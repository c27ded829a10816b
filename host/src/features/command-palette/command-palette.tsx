import { useEffect, useRef, useState } from 'react'
import type { SnapshotRemote } from '@tessera/contracts'
import { later, LaterBoundary } from '../../lib/later.tsx'

/** Whether a key press is the palette's shortcut: Ctrl-K, or ⌘-K on Apple keyboards. */
export const isPaletteShortcut = (event: KeyboardEvent): boolean =>
  (event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k'

/** The dialog's code: fetched once the first page is painted (`prefetchLaterParts`), or on Ctrl-K. */
export const paletteDialog = later(() =>
  import('./palette-dialog.tsx').then((module) => module.PaletteDialog),
)

/**
 * The command palette (Ctrl/⌘-K, again or Escape to close): listens for its shortcut on every
 * page and shows the dialog (palette-dialog.tsx); closing gives focus back to where it was.
 */
export function CommandPalette({
  remotes,
  navigate,
}: {
  remotes: readonly SnapshotRemote[]
  navigate: (to: string) => void
}) {
  const [open, setOpen] = useState(false)
  const returnFocus = useRef<Element | null>(null)

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isPaletteShortcut(event)) return
      event.preventDefault()
      setOpen((wasOpen) => {
        if (!wasOpen) returnFocus.current = document.activeElement
        return !wasOpen
      })
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [])

  if (!open) return null
  const close = () => {
    setOpen(false)
    if (returnFocus.current instanceof HTMLElement) returnFocus.current.focus()
  }
  // Offline before its file arrived: the shortcut does nothing rather than break the page.
  return (
    <LaterBoundary loading={null} failed={null}>
      <paletteDialog.Component
        remotes={remotes}
        navigate={navigate}
        onClose={close}
        onRun={() => setOpen(false)}
      />
    </LaterBoundary>
  )
}
