import { useEffect, useState } from 'react'
import type { ComponentType } from 'react'
import { CONTRACT_MAJOR, definePlugin } from '@tessera/contracts/plugin'
import type {
  MountFn,
  Plugin,
  PluginCommand,
  SlotMounts,
  SlotName,
  SlotProps,
} from '@tessera/contracts/plugin'
import { mountReact } from './mount-react.tsx'
import { withAnnouncedNavigation } from './use-search.ts'

export interface ReactPluginOptions {
  /** The federation name, the unscoped part of the package name (`billing`). */
  name: string
  /**
   * The remote's pages, imported on first visit only so the slots, shown on every page, stay
   * small: `() => import('./features/layout/components/billing-routes.tsx')`.
   */
  routes?: () => Promise<{ default: ComponentType }>
  /** What the page says while its module loads: `Loading billing…`. */
  loading?: string
  /** The component each named place of the host's frame shows, given that slot's props. */
  slots?: { [S in SlotName]?: ComponentType<SlotProps[S]> }
  /** Entries for the host's command palette (Ctrl/⌘-K); contract 1.1. */
  commands?: readonly PluginCommand[]
}

/**
 * A plugin of React components on the current contract major: each mount gets its own React
 * root (mountReact) and a platform whose navigations are announced to `useSearchParams`.
 */
export function defineReactPlugin(options: ReactPluginOptions): Plugin {
  const mountComponent =
    <P extends object>(Component: ComponentType<P>): MountFn<P> =>
    (el, platform, props) =>
      mountReact(el, withAnnouncedNavigation(platform), <Component {...((props ?? {}) as P)} />)

  let routes: Plugin['routes']
  if (options.routes !== undefined) {
    const importRoutes = options.routes
    const loading = options.loading ?? 'Loading…'
    // Not React.lazy under Suspense: React holds a boundary's content back until 300 ms after
    // its fallback was shown, so every first visit to a page waited that long with its code
    // already there (decision 041). The module is asked for once, when the page is mounted.
    let arrived: ComponentType | undefined
    let pending: Promise<ComponentType> | undefined
    const load = (): Promise<ComponentType> =>
      (pending ??= importRoutes().then(
        (module) => (arrived = module.default),
        (error: unknown) => {
          pending = undefined // a later mount (the host's "Try again") asks again
          throw error
        },
      ))
    const LoadingRoutes = () => {
      const [Routes, setRoutes] = useState(() => arrived)
      const [failure, setFailure] = useState<{ error: unknown }>()
      useEffect(() => {
        if (Routes !== undefined) return
        let current = true
        load().then(
          (component) => current && setRoutes(() => component),
          (error: unknown) => current && setFailure({ error }),
        )
        return () => {
          current = false
        }
      }, [Routes])
      // The mount's error boundary shows it, as a failed render.
      if (failure !== undefined) throw failure.error
      if (Routes === undefined) {
        return (
          <p className="page-loading" role="status">
            {loading}
          </p>
        )
      }
      return <Routes />
    }
    const mountRoutes = mountComponent(LoadingRoutes)
    routes = {
      mount: (el, platform, props) => {
        void load().catch(() => {}) // asked before the first render; a failure is shown by it
        return mountRoutes(el, platform, props)
      },
    }
  }

  let slots: SlotMounts | undefined
  if (options.slots !== undefined) {
    const made: Partial<Record<SlotName, MountFn<object>>> = {}
    for (const [slot, Component] of Object.entries(options.slots) as [
      SlotName,
      ComponentType<object> | undefined,
    ][]) {
      if (Component !== undefined) made[slot] = mountComponent(Component)
    }
    slots = made as SlotMounts
  }

  return definePlugin({
    name: options.name,
    contract: CONTRACT_MAJOR,
    ...(routes === undefined ? {} : { routes }),
    ...(slots === undefined ? {} : { slots }),
    ...(options.commands === undefined ? {} : { commands: options.commands }),
  })
}
