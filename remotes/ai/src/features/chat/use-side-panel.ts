import { useCallback, useEffect, useRef, useState } from 'react'

/**
 * The phone layout's conversation panel: opening moves focus into it (as into a dialog), Escape
 * closes it and focus returns to its toggle; grown past the phone layout, it closes.
 */
export function useSidePanel() {
  const [panelOpen, setPanelOpen] = useState(false)
  const panelToggleRef = useRef<HTMLButtonElement>(null)
  const newButtonRef = useRef<HTMLButtonElement>(null)
  const focusToggle = useRef(false)
  const closePanel = useCallback((returnFocus: boolean) => {
    // Focus returns once the chat is no longer inert, after this render.
    focusToggle.current = returnFocus
    setPanelOpen(false)
  }, [])
  useEffect(() => {
    if (panelOpen || !focusToggle.current) return
    focusToggle.current = false
    panelToggleRef.current?.focus()
  }, [panelOpen])
  useEffect(() => {
    if (!panelOpen) return
    // Focus moves into the panel, as into a dialog; the chat behind it is inert meanwhile.
    newButtonRef.current?.focus()
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') closePanel(true)
    }
    // Grown past the phone layout (a rotated tablet), the list is no longer a panel.
    const wide = window.matchMedia('(min-width: 861px)')
    const onWide = () => {
      if (wide.matches) closePanel(false)
    }
    document.addEventListener('keydown', onKey)
    wide.addEventListener('change', onWide)
    return () => {
      document.removeEventListener('keydown', onKey)
      wide.removeEventListener('change', onWide)
    }
  }, [panelOpen, closePanel])
  return { panelOpen, setPanelOpen, closePanel, panelToggleRef, newButtonRef }
}
