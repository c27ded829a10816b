import type { Plugin } from 'vite'

/** The chunk that holds what the exposed module imports statically (`plugin-<hash>.js`). */
export const FIRST_LOAD_CHUNK = 'plugin'

/** What the build tells about each module: what it imports statically, whether it is an entry. */
export interface ModuleGraph {
  ids: readonly string[]
  importedIds(id: string): readonly string[]
  isEntry(id: string): boolean
}

function staticClosure(graph: ModuleGraph, roots: readonly string[]): Set<string> {
  const seen = new Set<string>()
  const pending = [...roots]
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (seen.has(id)) continue
    seen.add(id)
    pending.push(...graph.importedIds(id))
  }
  return seen
}

/**
 * The modules to put in one chunk: everything the exposed module imports statically, but not the
 * exposed module itself (it stays the chunk originjs names and remoteEntry.js imports) and not
 * what the other entries (remoteEntry.js) import statically (they load it without the plugin).
 */
export function firstLoadModules(graph: ModuleGraph, exposedModule: string): Set<string> {
  const otherEntries = graph.ids.filter((id) => id !== exposedModule && graph.isEntry(id))
  const loadedWithoutPlugin = staticClosure(graph, otherEntries)
  const members = new Set<string>()
  for (const id of staticClosure(graph, [exposedModule])) {
    if (id !== exposedModule && !loadedWithoutPlugin.has(id)) members.add(id)
  }
  return members
}

/**
 * One chunk for everything the exposed module needs before it runs. originjs turns each shared
 * import into a top-level await, and Rolldown then makes none of its chunk optimisations: every
 * module the plugin shares with one of its lazy pages became a chunk of its own, each one more
 * request on a cold load (the auth remote's sign-in page asked the cdn for 10 files). All of them
 * are loaded whenever the exposed module is, so they go in one chunk, `plugin-<hash>.js`, with
 * one stylesheet; the lazy pages import from it. Decision 044 has the figures.
 *
 * `plugin` works out the modules when the module graph is complete; `group` is the
 * `output.codeSplitting` group that collects them.
 */
export function firstLoadChunk(exposedModule: string): {
  plugin: Plugin
  group: { name: string; test: (id: string) => boolean }
} {
  let members = new Set<string>()
  return {
    plugin: {
      name: 'tessera:first-load-chunk',
      apply: 'build',
      buildEnd(error) {
        if (error) return
        members = firstLoadModules(
          {
            ids: [...this.getModuleIds()],
            importedIds: (id) => this.getModuleInfo(id)?.importedIds ?? [],
            isEntry: (id) => this.getModuleInfo(id)?.isEntry === true,
          },
          exposedModule,
        )
      },
    },
    group: { name: FIRST_LOAD_CHUNK, test: (id) => members.has(id) },
  }
}
