import { Component, lazy, Suspense, type ComponentType, type ReactNode } from 'react'

/** A part of the frame whose code is in a file of its own: fetched when first shown, or before. */
export interface Later<P> {
  Component: ComponentType<P>
  /** Fetches its file now, so showing it later waits for nothing (a failure is left for then). */
  prefetch(): void
}

/**
 * Puts a component the first page does not show in a file of its own (decision 053): the
 * entry file stays small, and the component is fetched once, by `prefetch` or when shown.
 */
export function later<P extends object>(load: () => Promise<ComponentType<P>>): Later<P> {
  let loading: Promise<{ default: ComponentType<P> }> | null = null
  const fetchOnce = () =>
    (loading ??= load().then(
      (component) => ({ default: component }),
      (error: unknown) => {
        // A failed fetch (offline) is tried again by the next caller.
        loading = null
        throw error
      },
    ))
  return {
    Component: lazy(fetchOnce) as unknown as ComponentType<P>,
    prefetch: () => void fetchOnce().catch(() => undefined),
  }
}

interface LaterBoundaryProps {
  /** Shown while the part's file is fetched. */
  loading: ReactNode
  /** Shown if it cannot be fetched (the connection dropped, a release removed the file). */
  failed: ReactNode
  children: ReactNode
}

/** Where a `later` part is shown: its loading state, then the part, or what to do if it failed. */
export class LaterBoundary extends Component<LaterBoundaryProps, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true }
  }

  override render(): ReactNode {
    if (this.state.failed) return this.props.failed
    return <Suspense fallback={this.props.loading}>{this.props.children}</Suspense>
  }
}
