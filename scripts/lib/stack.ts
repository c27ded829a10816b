import { createServer } from 'node:net'
import path from 'node:path'
import { startBff } from '@tessera/bff/node'
import { startCdn } from '@tessera/emulators/cdn/node'
import { repoRoot } from './paths.ts'
import { publishLocal } from './publish-local.ts'

export interface StackOptions {
  /** 0 picks a free port. */
  bffPort: number
  cdnPort: number
  /** Where the stack keeps its state (cdn files, registry), relative to the repository root. */
  dataDir: string
  /** The built host the BFF serves at `/`. */
  hostDist?: string
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** Extra origins allowed to call the BFF and load remotes (the dev server). */
  extraOrigins?: string[]
  /** Serve remote files with no-cache (dev: builds are rewritten in place). */
  mutableCdn?: boolean
  /** Skip copying the builds (dev publishes them itself as they change). */
  skipPublish?: boolean
}

export interface RunningStack {
  appUrl: string
  cdnUrl: string
  registryFile: string
  cdnRoot: string
  close(): Promise<void>
}

/** A port that was free a moment ago (both servers need each other's origin before they start). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Starts the cdn stand-in and the BFF in this process, with the remotes published locally. */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const bffPort = options.bffPort || (await freePort())
  const cdnPort = options.cdnPort || (await freePort())
  const appUrl = `http://localhost:${bffPort}`
  const dataDir = path.resolve(repoRoot, options.dataDir)
  const cdnRoot = path.join(dataDir, 'cdn')
  const registryFile = path.join(dataDir, 'registry.json')
  const origins = [appUrl, `http://127.0.0.1:${bffPort}`, ...(options.extraOrigins ?? [])]

  const cdn = await startCdn({
    port: cdnPort,
    root: cdnRoot,
    allowedOrigins: origins,
    immutable: !options.mutableCdn,
  })
  if (!options.skipPublish) publishLocal({ cdnRoot, cdnUrl: cdn.url, registryFile })
  const bff = await startBff({
    env: {
      PORT: String(bffPort),
      PUBLIC_ORIGIN: appUrl,
      ALLOWED_ORIGINS: origins.join(','),
      REGISTRY_FILE: registryFile,
      HOST_DIST: path.resolve(repoRoot, options.hostDist ?? 'host/dist'),
      LOG_LEVEL: options.logLevel ?? 'info',
    },
  }).catch(async (error: unknown) => {
    await cdn.close()
    throw error
  })
  return {
    appUrl,
    cdnUrl: cdn.url,
    registryFile,
    cdnRoot,
    async close() {
      await bff.close()
      await cdn.close()
    },
  }
}
