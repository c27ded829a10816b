import { useEffect } from 'react'
import { useSearchParams } from '@tessera/plugin-react/use-search'

/** How long the page waits for the conversation's messages to be drawn (ms). */
const WAIT_MS = 10_000

/**
 * Opens a conversation at a search hit: with `?message=<id>` in the address, the message is
 * scrolled to the middle of the thread, marked and focused (so a screen reader reads it) once the
 * thread has drawn it.
 */
export function useMessageTarget(root: HTMLElement | null): void {
  const params = useSearchParams()
  const target = params.get('message')
  useEffect(() => {
    if (root === null || target === null) return
    let element: HTMLElement | null = null
    const find = () => {
      element =
        [...root.ownerDocument.querySelectorAll<HTMLElement>('[data-message-id]')].find(
          (candidate) => candidate.dataset.messageId === target,
        ) ?? null
      if (element === null) return false
      element.classList.add('message--target')
      element.tabIndex = -1
      // After the thread's own first scroll to its end, so it is not undone.
      requestAnimationFrame(() => {
        element?.scrollIntoView({ block: 'center' })
        element?.focus({ preventScroll: true })
      })
      return true
    }
    if (find()) return () => element?.classList.remove('message--target')
    const observer = new MutationObserver(() => {
      if (find()) observer.disconnect()
    })
    observer.observe(root.ownerDocument.body, { childList: true, subtree: true })
    const giveUp = setTimeout(() => observer.disconnect(), WAIT_MS)
    return () => {
      observer.disconnect()
      clearTimeout(giveUp)
      element?.classList.remove('message--target')
    }
  }, [root, target])
}
