import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import * as React from 'react'
import * as ReactDOMClient from 'react-dom/client'
import { afterEach, describe, expect, it } from 'vitest'
import { sharedSingletons } from '@tessera/remote-build'
import { hostSharedModules, shareWithRemotes, type ShareScopes } from './shared-scope.ts'

type ImportShared = (name: string) => Promise<Record<string, unknown>>

/**
 * The `importShared` every remote is built with, taken from the installed originjs as it writes it
 * into a remote (its module map empty and no version check, as `defineRemoteConfig` builds them),
 * run as a function: its one import and its export list are the only module syntax in it.
 */
function remotesImportShared(): ImportShared {
  const require = createRequire(import.meta.url)
  const dist = readFileSync(require.resolve('@originjs/vite-plugin-federation'), 'utf8')
  const literal = /const federation_fn_import = ("(?:[^"\\]|\\.)*");/.exec(dist)?.[1]
  if (!literal) throw new Error('originjs no longer writes federation_fn_import as one string')
  const source = JSON.parse(literal) as string
  const body = source
    .replace("import { satisfy } from '__federation_fn_satisfy'", 'const satisfy = null')
    .replace('__rf_var__moduleMap', '{}')
    .replace(/export \{[^}]*\}\s*$/, 'return importShared')
  if (/^\s*(import|export)\b/m.test(body)) throw new Error(`unexpected: ${source}`)
  return new Function(body)() as ImportShared
}

const global = globalThis as { __federation_shared__?: unknown }
afterEach(() => {
  delete global.__federation_shared__
})

describe('the share scope the host gives its remotes', () => {
  it('holds every module a remote is built to take from the host', () => {
    expect(Object.keys(hostSharedModules).sort()).toEqual([...sharedSingletons].sort())
  })

  it("gives a remote's importShared the host's own modules, with their named exports", async () => {
    shareWithRemotes({
      react: { version: React.version, module: React },
      'react-dom/client': { version: '19.0.0', module: ReactDOMClient },
    })
    const importShared = remotesImportShared()
    const react = await importShared('react')
    expect(react.useState).toBe(React.useState)
    expect(react.createElement).toBe(React.createElement)
    expect((await importShared('react-dom/client')).createRoot).toBe(ReactDOMClient.createRoot)
  })

  it('keeps what is already in the scope under other names, and replaces its own entries', () => {
    const other = { get: () => () => ({}), loaded: 1 as const }
    const target: { __federation_shared__: ShareScopes } = {
      __federation_shared__: { default: { lodash: { '4.0.0': other } } },
    }
    shareWithRemotes({ react: { version: '18.0.0', module: {} } }, target)
    shareWithRemotes({ react: { version: '19.0.0', module: React } }, target)
    expect(target.__federation_shared__.default?.lodash).toEqual({ '4.0.0': other })
    expect(Object.keys(target.__federation_shared__.default ?? {})).toEqual(['lodash', 'react'])
    expect(Object.keys(target.__federation_shared__.default?.react ?? {})).toEqual(['19.0.0'])
  })
})
