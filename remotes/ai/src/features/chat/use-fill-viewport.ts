import { useLayoutEffect } from 'react'
import type { RefObject } from 'react'

/**
 * Sizes the chat to the rest of the window below where the host placed it (`--ai-fill-height`),
 * so the thread scrolls inside it and the composer stays in view. Measured rather than guessed
 * from the host's header height: the host owns its frame and may change it.
 */
export function useFillViewport(ref: RefObject<HTMLElement | null>) {
  useLayoutEffect(() => {
    const el = ref.current
    if (el === null) return
    const measure = () => {
      const top = el.getBoundingClientRect().top + window.scrollY
      const main = el.closest('main')
      const below = main ? parseFloat(getComputedStyle(main).paddingBottom) || 0 : 0
      // The frame's bottom padding is for pages that scroll; a chat needs only a small margin, so
      // a negative margin takes the rest back and the window itself does not scroll.
      const margin = Math.min(below, 16)
      el.style.setProperty(
        '--ai-fill-height',
        `${Math.max(0, window.innerHeight - top - margin)}px`,
      )
      el.style.marginBottom = `${margin - below}px`
    }
    measure()
    window.addEventListener('resize', measure)
    return () => window.removeEventListener('resize', measure)
  }, [ref])
}
