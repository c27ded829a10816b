// Node-only: read by node.ts, never by app.ts.
import { readFile, stat } from 'node:fs/promises'
import { unwatchFile, watchFile } from 'node:fs'
import type { Stats } from 'node:fs'
import { basename } from 'node:path'
import { RegistryReadError } from './registry.ts'
import type { RegistrySource } from './registry.ts'

function errorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined
}

/**
 * The registry as a JSON file, re-read only when its mtime or size changes. `watch` polls the
 * file, which also notices it being created, replaced by a rename, or deleted.
 */
export function createFileRegistrySource(options: {
  file: string
  pollMs?: number
}): RegistrySource {
  const { file } = options
  // Diagnostics reach browsers: name the file, not the server's directory layout.
  const shown = basename(file)
  let cache: { mtimeMs: number; size: number; content: unknown } | null = null

  return {
    async read() {
      let stats: Stats
      try {
        stats = await stat(file)
      } catch (error) {
        const message =
          errorCode(error) === 'ENOENT'
            ? `There is no registry file (${shown}) yet, so no remote is served. Publish the remotes (npm start does) to create it.`
            : `The registry file (${shown}) could not be read (${errorCode(error) ?? 'unknown error'}), so no remote is served.`
        throw new RegistryReadError(message, { cause: error })
      }
      if (cache !== null && cache.mtimeMs === stats.mtimeMs && cache.size === stats.size) {
        return cache.content
      }
      const text = await readFile(file, 'utf8')
      let content: unknown
      try {
        content = JSON.parse(text)
      } catch (error) {
        throw new RegistryReadError(
          `The registry file (${shown}) is not valid JSON, so no remote is served.`,
          { cause: error },
        )
      }
      cache = { mtimeMs: stats.mtimeMs, size: stats.size, content }
      return content
    },
    watch(onChange) {
      const listener = (current: Stats, previous: Stats): void => {
        if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size) onChange()
      }
      watchFile(file, { interval: options.pollMs ?? 500, persistent: false }, listener)
      return () => unwatchFile(file, listener)
    },
  }
}
