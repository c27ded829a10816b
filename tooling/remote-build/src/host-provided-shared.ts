import type { Plugin } from 'vite'

/**
 * A remote takes every shared module from the host (`generate: false`, no local copy). originjs
 * still builds two things for a local copy that is never used; this plugin replaces both:
 *
 * - the fallback chunks: originjs emits one per shared module from its `packagePath`, so each
 *   remote bundled react and react-dom only to delete them afterwards, and the chunks they had in
 *   common with the plugin's code (Rolldown's runtime helper) became one more file to fetch.
 *   `defineRemoteConfig` points `packagePath` at NO_LOCAL_COPY, an empty module.
 * - the semver matcher of `importShared` (about 1.5 KB of gzip per remote, fetched on every cold
 *   load). With no local copy, originjs writes an empty module map, no shared module has a
 *   `requiredVersion`, and `satisfy()` is never called. The host, which provides React, keeps
 *   the real matcher. Should a remote ever be built with a local copy, the stub throws instead of
 *   quietly accepting any version.
 */
export const NO_LOCAL_COPY = 'tessera:no-local-copy'
/** The module originjs's `importShared` takes its semver range check from. */
export const SATISFY_MODULE = '__federation_fn_satisfy'
/** What the stub throws. */
export const SATISFY_STUB_MESSAGE =
  'Remote built without runtime version checks (every shared module is generate: false)'

const NO_LOCAL_COPY_ID = '\0tessera:no-local-copy'
const SATISFY_STUB_ID = '\0tessera:federation-satisfy-stub'

export function hostProvidedSharedPlugin(): Plugin {
  return {
    name: 'tessera:host-provided-shared',
    apply: 'build',
    // Before originjs, which resolves the satisfy module to its own satisfy.mjs.
    enforce: 'pre',
    resolveId(source) {
      if (source === NO_LOCAL_COPY) return NO_LOCAL_COPY_ID
      if (source === SATISFY_MODULE) return SATISFY_STUB_ID
      return null
    },
    load(id) {
      if (id === NO_LOCAL_COPY_ID) return 'export {}\n'
      if (id === SATISFY_STUB_ID)
        return `export function satisfy() { throw new Error(${JSON.stringify(SATISFY_STUB_MESSAGE)}) }\n`
      return null
    },
  }
}
