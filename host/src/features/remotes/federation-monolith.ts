import { RemoteLoadError, type RemoteEntryRef } from './remote-load-error.ts'

// The monolith build's stand-in for federation.ts (same exports; swapped in by vite.config.ts
// when TESSERA_MONOLITH=1). Every plugin under remotes/ is imported statically (found by its
// folder, so a new remote is part of the monolith without a change here): the benchmark
// measures the same host and plugins without module federation.

const modules = import.meta.glob<unknown>('../../../../remotes/*/src/plugin.tsx', {
  eager: true,
  import: 'default',
})

const plugins: Record<string, unknown> = Object.fromEntries(
  Object.entries(modules).map(([file, plugin]) => [
    /\/remotes\/([^/]+)\/src\/plugin\.tsx$/.exec(file)?.[1] ?? file,
    plugin,
  ]),
)

export function registerRemote(ref: RemoteEntryRef): string {
  return ref.name
}

export async function loadPluginModule(key: string, entryReady?: () => void): Promise<unknown> {
  if (!(key in plugins))
    throw new RemoteLoadError('entry', 'unreachable', `${key} is not part of this monolith build`)
  entryReady?.()
  return plugins[key]
}

export function loadRemotePlugin(ref: RemoteEntryRef, entryReady?: () => void): Promise<unknown> {
  return loadPluginModule(registerRemote(ref), entryReady)
}
