import type { Platform } from './platform.ts'

/** The major version of the host ↔ plugin contract. A plugin built for another major is refused. */
export const CONTRACT_MAJOR = 1

/** Named places in the host's frame that plugins may fill. */
export const slotNames = ['header.end'] as const
export type SlotName = (typeof slotNames)[number]

/** Undoes a mount: removes the plugin's DOM and listeners from the element it was given. */
export type Unmount = () => void

/** Renders into `el` (which the plugin owns until it returns unmount) with the platform as context. */
export type MountFn = (el: HTMLElement, platform: Platform) => Unmount

export interface Plugin {
  name: string
  /** The contract major the plugin was built against. */
  contract: number
  /** Owns every path under the remote's base path; absent for slot-only plugins. */
  routes?: { mount: MountFn }
  slots?: Partial<Record<SlotName, MountFn>>
}

/** Declares a plugin; the identity function that gives the object its type. */
export function definePlugin(plugin: Plugin): Plugin {
  return plugin
}

/** Checks the shape of what a remote's `./plugin` module exported, without trusting it. */
export function asPlugin(value: unknown): Plugin | null {
  if (typeof value !== 'object' || value === null) return null
  const candidate = value as Record<string, unknown>
  if (typeof candidate.name !== 'string' || typeof candidate.contract !== 'number') return null
  const routes = candidate.routes as Record<string, unknown> | undefined
  if (routes !== undefined && typeof routes?.mount !== 'function') return null
  const slots = candidate.slots
  if (slots !== undefined && (typeof slots !== 'object' || slots === null)) return null
  return value as Plugin
}
