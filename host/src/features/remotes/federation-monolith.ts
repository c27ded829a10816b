import ai from '../../../../remotes/ai/src/plugin.tsx'
import auth from '../../../../remotes/auth/src/plugin.tsx'
import billing from '../../../../remotes/billing/src/plugin.tsx'
import { RemoteLoadError, type RemoteEntryRef } from './remote-load-error.ts'

// The monolith build's stand-in for federation.ts (same exports; swapped in by vite.config.ts
// when TESSERA_MONOLITH=1). The three plugins are imported statically, so the benchmark measures
// the same host and plugins without module federation.

const plugins: Record<string, unknown> = { ai, auth, billing }

export function registerRemote(ref: RemoteEntryRef): string {
  return ref.name
}

export async function loadPluginModule(key: string): Promise<unknown> {
  if (!(key in plugins))
    throw new RemoteLoadError('entry', 'unreachable', `${key} is not part of this monolith build`)
  return plugins[key]
}

export function loadRemotePlugin(ref: RemoteEntryRef): Promise<unknown> {
  return loadPluginModule(registerRemote(ref))
}
