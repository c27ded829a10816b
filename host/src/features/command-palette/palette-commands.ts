import type { PluginCommand, SnapshotRemote } from '@tessera/contracts'
import { navRemotes } from '../../lib/router/match-route.ts'
import { remoteLabel } from '../remotes/loader.ts'
import type { RemotesRuntime } from '../remotes/remotes-context.tsx'

/** One line of the palette: the host's own (go to a page) or a plugin's command. */
export interface PaletteEntry {
  key: string
  label: string
  /** The plugin's label, for its commands. */
  source: string | null
  shortcut: string | null
  run(): Promise<void>
}

/** The host's own entries: one "Go to …" per navigation item. */
export function navigationEntries(
  remotes: readonly SnapshotRemote[],
  navigate: (to: string) => void,
): PaletteEntry[] {
  return navRemotes(remotes).map((remote) => ({
    key: `go:${remote.name}`,
    label: `Go to ${remoteLabel(remote)}`,
    source: null,
    shortcut: null,
    run: async () => navigate(remote.basePath),
  }))
}

/**
 * Every plugin's commands. Opening the palette is what needs them, so each remote's plugin is
 * loaded then (the loader shares loads already made); a remote that fails to load contributes
 * nothing and is reported as anywhere else.
 */
export async function pluginEntries(
  runtime: RemotesRuntime,
  remotes: readonly SnapshotRemote[],
): Promise<PaletteEntry[]> {
  const lists = await Promise.all(
    remotes.map(async (remote) => {
      const outcome = await runtime.loader.load(remote)
      if (!outcome.ok) return []
      const commands: readonly PluginCommand[] = Array.isArray(outcome.plugin.commands)
        ? outcome.plugin.commands
        : []
      return commands
        .filter((command) => typeof command.run === 'function' && typeof command.label === 'string')
        .map((command): PaletteEntry => ({
          key: `${remote.name}:${command.id}`,
          label: command.label,
          source: remoteLabel(remote),
          shortcut: command.shortcut ?? null,
          run: async () => {
            const mounted = runtime.platformFor(remote, outcome.version)
            try {
              await command.run(mounted.platform)
            } catch (error) {
              runtime.report({
                remote: remote.name,
                version: outcome.version,
                stage: 'runtime',
                message: error instanceof Error ? error.message : String(error),
                fellBack: false,
              })
            } finally {
              mounted.dispose()
            }
          },
        }))
    }),
  )
  return lists.flat()
}

/** Entries whose label (or plugin) contains every word typed, case-insensitively. */
export function filterEntries(entries: readonly PaletteEntry[], query: string): PaletteEntry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean)
  return entries.filter((entry) => {
    const text = `${entry.label} ${entry.source ?? ''}`.toLowerCase()
    return words.every((word) => text.includes(word))
  })
}
