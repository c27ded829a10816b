import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import type { RefObject } from 'react'

/** Within this many pixels of the end counts as "at the latest". */
const NEAR_END = 48

const prefersReducedMotion = () =>
  typeof window.matchMedia === 'function' &&
  window.matchMedia('(prefers-reduced-motion: reduce)').matches

/**
 * Keeps a scrolling thread at its end while text streams in, unless the reader scrolled up to
 * read: then it stays put and `following` turns false (the page offers "Jump to latest"). Only a
 * scroll *up* stops following, so content growing or a smooth scroll down never does.
 */
export function useFollowScroll(
  ref: RefObject<HTMLElement | null>,
  /** Changes whenever the content may have grown. */
  content: unknown,
) {
  const [following, setFollowing] = useState(true)
  const followingRef = useRef(true)
  const lastTop = useRef(0)

  const follow = useCallback((value: boolean) => {
    followingRef.current = value
    setFollowing(value)
  }, [])

  useEffect(() => {
    const el = ref.current
    if (el === null) return
    const onScroll = () => {
      const top = el.scrollTop
      const atEnd = el.scrollHeight - top - el.clientHeight <= NEAR_END
      if (atEnd) follow(true)
      else if (top < lastTop.current - 1) follow(false)
      lastTop.current = top
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    return () => el.removeEventListener('scroll', onScroll)
  }, [ref, follow])

  // Before paint, so the reader never sees the new text below the fold for a frame.
  useLayoutEffect(() => {
    const el = ref.current
    if (el === null || !followingRef.current) return
    el.scrollTop = el.scrollHeight
    lastTop.current = el.scrollTop
  }, [ref, content])

  /** Goes to the end and follows again: the "Jump to latest" button, or a new message sent. */
  const toLatest = useCallback(
    (options: { smooth?: boolean } = {}) => {
      const el = ref.current
      follow(true)
      if (el === null) return
      const smooth = options.smooth === true && !prefersReducedMotion()
      if (smooth) el.scrollTo({ top: el.scrollHeight, behavior: 'smooth' })
      else el.scrollTop = el.scrollHeight
    },
    [ref, follow],
  )

  return { following, toLatest }
}
