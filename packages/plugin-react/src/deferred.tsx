import { useEffect, useState } from 'react'
import type { ComponentType, ReactNode } from 'react'

/** A component whose code is imported on its first render, showing `fallback` until then. */
export type Deferred<P extends object> = ComponentType<P & { fallback?: ReactNode }> & {
  /** Starts the import ahead of the first render (a page's mount, a pointer over a button). */
  load(): Promise<ComponentType<P>>
}

/**
 * The one way a plugin loads part of its UI later: `deferred(() => import('./x.tsx').then((m) =>
 * m.X))`, rendered as `<X fallback={…} {...props} />`. Not React.lazy under Suspense: React holds a
 * boundary's content back until 300 ms after its fallback was shown, so code that arrives in a few
 * milliseconds was shown 300 ms late (docs/decisions/041). This shows it in the render after it
 * arrives. The module is asked for once; after a failure, which reaches the nearest error boundary
 * as a failed render would, the next render that needs it asks again.
 */
export function deferred<P extends object>(
  importComponent: () => Promise<ComponentType<P>>,
): Deferred<P> {
  let arrived: ComponentType<P> | undefined
  let pending: Promise<ComponentType<P>> | undefined
  const load = (): Promise<ComponentType<P>> =>
    (pending ??= importComponent().then(
      (component) => (arrived = component),
      (error: unknown) => {
        pending = undefined
        throw error
      },
    ))

  function DeferredComponent({ fallback = null, ...props }: P & { fallback?: ReactNode }) {
    const [Component, setComponent] = useState(() => arrived)
    const [failure, setFailure] = useState<{ error: unknown }>()
    useEffect(() => {
      if (Component !== undefined) return
      let current = true
      load().then(
        (component) => current && setComponent(() => component),
        (error: unknown) => current && setFailure({ error }),
      )
      return () => {
        current = false
      }
    }, [Component])
    if (failure !== undefined) throw failure.error
    if (Component === undefined) return <>{fallback}</>
    return <Component {...(props as P)} />
  }
  return Object.assign(DeferredComponent, { load })
}
