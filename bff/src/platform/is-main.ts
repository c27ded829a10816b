// Node-only: whether a module is the one Node was started with.
import { existsSync, realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

/**
 * Whether the module at `moduleUrl` is the one Node was started with (`tsx bff/src/node.ts`), not
 * one imported by a script or a test: the BFF's entry and its commands run only then.
 */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1]
  return (
    entry !== undefined &&
    existsSync(entry) &&
    moduleUrl === pathToFileURL(realpathSync(entry)).href
  )
}
