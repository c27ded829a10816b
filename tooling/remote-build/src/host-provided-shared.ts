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
 *   `requiredVersion`, and `satisfy()` is never called. Should a build ever declare a version
 *   range, the stub throws instead of quietly accepting any version.
 */
export const NO_LOCAL_COPY = 'tessera:no-local-copy'
/** The module originjs's `importShared` takes its semver range check from. */
export const SATISFY_MODULE = '__federation_fn_satisfy'
/** What the stub throws. */
export const SATISFY_STUB_MESSAGE =
  'Built without runtime version checks (no shared module has a requiredVersion)'

const satisfyStub = `export function satisfy() { throw new Error(${JSON.stringify(SATISFY_STUB_MESSAGE)}) }\n`

/** Each stubbed import name, and the code a remote's build gets instead. */
const stubs: Record<string, string> = {
  [NO_LOCAL_COPY]: 'export {}\n',
  [SATISFY_MODULE]: satisfyStub,
}

export function hostProvidedSharedPlugin(): Plugin {
  const name = 'tessera:host-provided-shared'
  const prefix = `\0${name}:`
  return {
    name,
    apply: 'build',
    // Before originjs, which resolves the satisfy module to its own satisfy.mjs.
    enforce: 'pre',
    resolveId: (source) => (source in stubs ? `${prefix}${source}` : null),
    load: (id) => (id.startsWith(prefix) ? (stubs[id.slice(prefix.length)] ?? null) : null),
  }
}
