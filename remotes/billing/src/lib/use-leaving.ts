import { useCallback, useEffect, useRef, useState } from 'react'

/**
 * One action that ends by leaving the app for a Stripe page (checkout, portal): `run` refuses a
 * second call while one is out, stays pending once the browser is on its way, and is usable again
 * when the person comes Back to this page from the browser's cache.
 */
export function useLeaving<T>(action: (arg: T) => Promise<void>) {
  const [pending, setPending] = useState<{ arg: T } | null>(null)
  const inFlight = useRef(false)

  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return
      inFlight.current = false
      setPending(null)
    }
    window.addEventListener('pageshow', onPageShow)
    return () => window.removeEventListener('pageshow', onPageShow)
  }, [])

  const run = useCallback(
    async (arg: T): Promise<boolean> => {
      if (inFlight.current) return false
      inFlight.current = true
      setPending({ arg })
      try {
        await action(arg)
        return true
      } catch (error) {
        inFlight.current = false
        setPending(null)
        throw error
      }
    },
    [action],
  )

  /** What is being done (`pending.arg`), or null when nothing is. */
  return { pending, run }
}
