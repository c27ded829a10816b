import { readFile, realpath, stat } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { brotliCompress, constants } from 'node:zlib'
import { serve } from '@hono/node-server'
import { createCdnApp, type CdnFiles } from './app.ts'
import { cdnDefaults, loadCdnEnv } from './env.ts'

/** The repository root, against which relative cdn roots resolve. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

const brotli = promisify(brotliCompress)

const missingCodes = new Set(['ENOENT', 'ENOTDIR', 'EISDIR'])

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && missingCodes.has(String(error.code))
}

/**
 * Reads files from a folder, refusing anything whose real path (symlinks followed) is outside it.
 */
export function directoryFiles(root: string): CdnFiles {
  const base = path.resolve(root)
  const inside = (candidate: string, folder: string) =>
    candidate.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep)
  return {
    async read(segments) {
      const file = path.resolve(base, ...segments)
      if (!inside(file, base)) return null
      try {
        const [realFile, realBase] = await Promise.all([realpath(file), realpath(base)])
        if (!inside(realFile, realBase)) return null
        if (!(await stat(realFile)).isFile()) return null
        return new Uint8Array(await readFile(realFile))
      } catch (error) {
        if (isMissing(error)) return null
        throw error
      }
    },
  }
}

export interface StartCdnOptions {
  /** 0 picks a free port (what tests do); 8788 by default. */
  port?: number
  /** Folder of published builds, `<root>/<name>/<version>/…`; relative to the repository root. */
  root?: string
  allowedOrigins?: readonly string[]
  immutable?: boolean
  hostname?: string
}

export interface RunningCdn {
  url: string
  close(): Promise<void>
}

/** Starts the cdn stand-in on Node and resolves once it is listening. */
export async function startCdn(options: StartCdnOptions = {}): Promise<RunningCdn> {
  const app = createCdnApp({
    files: directoryFiles(path.resolve(repoRoot, options.root ?? cdnDefaults.root)),
    allowedOrigins: options.allowedOrigins ?? cdnDefaults.allowedOrigins,
    immutable: options.immutable ?? true,
    brotli: (body) => brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  })
  const { server, address } = await new Promise<{
    server: ReturnType<typeof serve>
    address: AddressInfo
  }>((resolve, reject) => {
    const server = serve(
      {
        fetch: app.fetch,
        port: options.port ?? cdnDefaults.port,
        ...(options.hostname ? { hostname: options.hostname } : {}),
      },
      (address) => resolve({ server, address }),
    )
    server.once('error', reject)
  })
  const host = options.hostname ?? 'localhost'
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        // Keep-alive connections from a browser would otherwise hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections()
      }),
  }
}

function log(level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ level, msg, ...fields }))
}

async function main(): Promise<void> {
  const env = loadCdnEnv()
  const root = path.resolve(repoRoot, env.CDN_ROOT)
  const cdn = await startCdn({
    port: env.CDN_PORT,
    root,
    allowedOrigins: env.CDN_ALLOWED_ORIGINS,
    immutable: env.CDN_IMMUTABLE,
  })
  if (env.LOG_LEVEL !== 'silent' && env.LOG_LEVEL !== 'warn' && env.LOG_LEVEL !== 'error') {
    log('info', 'cdn listening', { url: cdn.url, root, allowedOrigins: env.CDN_ALLOWED_ORIGINS })
  }
  const stop = () => {
    cdn.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log('error', 'cdn did not close cleanly', { error: String(error) })
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    log('error', 'cdn failed to start', {
      error: error instanceof Error ? error.message : String(error),
    })
    process.exit(1)
  })
}
