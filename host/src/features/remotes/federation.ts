import {
  __federation_method_ensure,
  __federation_method_setRemote,
  __federation_method_unwrapDefault,
} from 'virtual:__federation__'
import { preloadRemoteFiles, takeUpStylesheetHints } from './preload-links.ts'
import { RemoteLoadError, type RemoteEntryRef } from './remote-load-error.ts'
import { hostSharedModules, shareWithRemotes } from './shared-scope.ts'

// The one module that knows the federation plugin (DESIGN §4), with shared-scope.ts: replacing
// @originjs with another runtime means rewriting these two files and nothing else. The monolith
// build swaps this one for federation-monolith.ts, which has the same exports.

// The host's React, given to every remote from memory before any remote loads (decision 051).
shareWithRemotes(hostSharedModules)

/** The module every Tessera remote exposes. */
const EXPOSED_MODULE = './plugin'

/** How many times each (name, version, url) was registered, to give every retry a fresh URL. */
const registrations = new Map<string, number>()

/**
 * Registers one remote entry with the federation runtime and returns the key it is known by.
 *
 * originjs caches a container per key and never forgets a failed or hung `import()`, and the
 * browser's module map does the same per URL. So every (name, version, url) gets its own key, and
 * each later attempt at the same one gets a new key and a cache-busting query: a retry or a
 * fallback to the previous version really fetches again instead of awaiting the old promise.
 */
export function registerRemote(ref: RemoteEntryRef): string {
  const base = `${ref.name}@${ref.version}|${ref.entryUrl}`
  const count = (registrations.get(base) ?? 0) + 1
  registrations.set(base, count)
  const key = count === 1 ? base : `${base}|attempt-${count}`
  const url = new URL(ref.entryUrl)
  if (count > 1) url.searchParams.set('tessera-attempt', String(count))
  // The first attempt announces the exposed module's files so they download in parallel with the
  // entry rather than one import after another. A retry goes through the imports alone: the
  // hints are a head start for the first load, not part of loading.
  if (count === 1 && ref.preload) preloadRemoteFiles(document, ref.entryUrl, ref.preload)
  // A retry after a failed download: a stylesheet hint that failed would fail it again.
  if (count > 1) takeUpStylesheetHints(document, ref)
  __federation_method_setRemote(key, {
    url: () => Promise.resolve(url.toString()),
    format: 'esm',
    from: 'vite',
  })
  return key
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Whether an `import()` failed to download (worth retrying) rather than failed to run. */
function isDownloadFailure(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /dynamically imported module|Failed to fetch|Importing a module script failed|error loading/i.test(
      error.message,
    )
  )
}

/**
 * Loads `./plugin` from a registered entry: the entry first (`entryReady` is called once it has
 * loaded), then the module it exposes.
 */
export async function loadPluginModule(key: string, entryReady?: () => void): Promise<unknown> {
  let container
  try {
    container = await __federation_method_ensure(key)
    entryReady?.()
  } catch (error) {
    throw new RemoteLoadError(
      isDownloadFailure(error) ? 'entry' : 'plugin',
      isDownloadFailure(error) ? 'unreachable' : 'invalid',
      messageOf(error),
    )
  }
  try {
    const factory = await container.get(EXPOSED_MODULE)
    return __federation_method_unwrapDefault(factory())
  } catch (error) {
    // The exposed chunk lives on the same origin as the entry: a failed download of it is an
    // outage like the entry's; anything else (no such module, a throw at start) is a bad build.
    if (isDownloadFailure(error))
      throw new RemoteLoadError('entry', 'unreachable', messageOf(error))
    throw new RemoteLoadError(
      'plugin',
      'invalid',
      `${EXPOSED_MODULE} could not be loaded: ${messageOf(error)}`,
    )
  }
}

/** Registers and loads in one step: what the loader calls for every attempt. */
export function loadRemotePlugin(ref: RemoteEntryRef, entryReady?: () => void): Promise<unknown> {
  return loadPluginModule(registerRemote(ref), entryReady)
}
