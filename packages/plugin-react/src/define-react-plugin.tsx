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
import { deferred } from './deferred.tsx'
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
    const Routes = deferred(() => importRoutes().then((module) => module.default))
    const fallback = (
      <p className="page-loading" role="status">
        {options.loading ?? 'Loading…'}
      </p>
    )
    const LoadingRoutes = () => <Routes fallback={fallback} />
    const mountRoutes = mountComponent(LoadingRoutes)
    routes = {
      mount: (el, platform, props) => {
        // Asked for before the first render; a failure is shown by that render.
        Routes.load().catch(() => {})
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
