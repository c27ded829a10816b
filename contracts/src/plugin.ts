import type { Platform, SessionUser } from './platform.ts'

/** The major version of the host ↔ plugin contract. A plugin built for another major is refused. */
export const CONTRACT_MAJOR = 1

/**
 * The minor version: what this major has gained, each addition optional so a plugin of an older
 * minor still works and a plugin of a newer one degrades (a slot the host lacks is not shown).
 * 0: `header.end`. 1: the `account.section` and `home.card` slots, slot props, `commands`, and
 * `platform.contractMinor`, `platform.location`, `platform.slots`. 2: the descriptor's `audience`
 * (`operators`: left out of everyone else's snapshot, listed in its `restricted`). 3: the
 * descriptor's `signedInSlots` (slots a host leaves out, unloaded, while nobody is signed in).
 */
export const CONTRACT_MINOR = 3

/** Named places in the host's frame that plugins may fill (see `SlotProps` for each one's props). */
export const slotNames = ['header.end', 'account.section', 'home.card'] as const
export type SlotName = (typeof slotNames)[number]

/** What the host passes each slot's mount, besides the platform. */
export interface SlotProps {
  /** The end of the header, on every page: something small (a badge, a menu). Since 1.0. */
  'header.end': Record<string, never>
  /**
   * A panel on the account page (the auth remote's, through `platform.slots`), one per plugin,
   * for the plugin's own settings of this account. Since 1.1.
   */
  'account.section': { user: SessionUser }
  /**
   * A card on the home page (`/`, shown when any plugin fills this slot): a summary that links
   * to the plugin's page. `user` is null for a visitor who has not signed in. Since 1.1.
   */
  'home.card': { user: SessionUser | null }
}

/** Undoes a mount: removes the plugin's DOM and listeners from the element it was given. */
export type Unmount = () => void

/**
 * Renders into `el` (which the plugin owns until it returns unmount) with the platform as context,
 * and for a slot that slot's props (`SlotProps`; hosts before 1.1 pass none).
 */
export type MountFn<P = Record<string, never>> = (
  el: HTMLElement,
  platform: Platform,
  props?: P,
) => Unmount

/** A plugin's mount function for each slot it fills. */
export type SlotMounts = { [S in SlotName]?: MountFn<SlotProps[S]> }

/**
 * An entry of the host's command palette (Ctrl/⌘-K). Since 1.1. The palette loads the plugins
 * when it opens, lists their commands by `label`, and calls `run` with the plugin's platform.
 */
export interface PluginCommand {
  /** Unique within the plugin: `new-note`. */
  id: string
  /** What the palette shows: `New note`. */
  label: string
  /** A hint shown beside the label, like `Mod+Shift+N` (Mod: ⌘ on Apple, Ctrl elsewhere). */
  shortcut?: string
  run(platform: Platform): void | Promise<void>
}

export interface Plugin {
  name: string
  /** The contract major the plugin was built against. */
  contract: number
  /** Owns every path under the remote's base path; absent for slot-only plugins. */
  routes?: { mount: MountFn }
  slots?: SlotMounts
  /** Entries for the host's command palette. Since 1.1. */
  commands?: readonly PluginCommand[]
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
  const commands = candidate.commands
  if (commands !== undefined && !Array.isArray(commands)) return null
  return value as Plugin
}
