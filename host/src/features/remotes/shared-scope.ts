import * as React from 'react'
import * as ReactDOM from 'react-dom'
import * as ReactDOMClient from 'react-dom/client'

// With federation.ts, the only code that knows the federation runtime: originjs's share scope,
// `globalThis.__federation_shared__[scope][name][version] = { get, loaded }`, read by every
// remote's `importShared` (and merged into the scope the host hands a remote's `init`).

/** A module the host gives its remotes: its version and its namespace object. */
export interface SharedModule {
  version: string
  module: object
}

export interface ShareScopeEntry {
  get: () => () => object
  loaded: 1
}
export type ShareScopes = Record<string, Record<string, Record<string, ShareScopeEntry>>>

/**
 * Puts `modules` into the default share scope as modules already loaded: a remote that imports
 * `react` gets the host's own copy from memory, so hooks and context cross the boundary, and no
 * file is fetched for it (decision 051). What a remote's `importShared` does with an entry:
 * `await (await entry.get())()`, then it spreads the module's `default` beside its named exports.
 */
export function shareWithRemotes(
  modules: Record<string, SharedModule>,
  target: { __federation_shared__?: ShareScopes } = globalThis as never,
): void {
  const scopes = (target.__federation_shared__ ??= {})
  const scope = (scopes.default ??= {})
  for (const [name, { version, module }] of Object.entries(modules))
    scope[name] = { [version]: { get: () => () => module, loaded: 1 } }
}

/** What every remote is built to take from the host (`sharedSingletons` of tooling/remote-build). */
export const hostSharedModules: Record<string, SharedModule> = {
  react: { version: React.version, module: React },
  'react-dom': { version: ReactDOM.version, module: ReactDOM },
  'react-dom/client': { version: ReactDOM.version, module: ReactDOMClient },
}
