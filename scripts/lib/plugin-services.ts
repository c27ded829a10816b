import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { discoverRemotes, remoteDir, repoRoot } from './paths.ts'

/** The remotes that have their own backend: a folder `remotes/<name>/api` with a package.json. */
export function remotesWithApi(): string[] {
  return discoverRemotes().filter((name) =>
    existsSync(path.join(remoteDir(name), 'api', 'package.json')),
  )
}

/** Parses `PLUGIN_UPSTREAMS` (`name=origin,…`) loosely: the BFF checks it properly. */
function parseUpstreams(value: string | undefined): Map<string, string> {
  const upstreams = new Map<string, string>()
  for (const entry of (value ?? '').split(',')) {
    const split = entry.indexOf('=')
    if (split > 0) upstreams.set(entry.slice(0, split).trim(), entry.slice(split + 1).trim())
  }
  return upstreams
}

export interface PluginServices {
  /** `PLUGIN_UPSTREAMS` for the BFF: what the environment maps, plus each service started here. */
  upstreams: string
  close(): Promise<void>
}

/**
 * Starts each remote's own API (`remotes/<name>/api`, its `start` command) on a free loopback
 * port for local development, told where the BFF's keys are, and maps it for the BFF's plugin
 * proxy. A plugin the environment already maps (PLUGIN_UPSTREAMS) is left to that upstream.
 */
export async function startPluginServices(options: {
  /** The BFF's public origin: the issuer of the JWTs the services verify. */
  publicOrigin: string
  /** Where the services fetch the BFF's keys from. */
  jwksUrl: string
  mapped: string | undefined
  freePort: () => Promise<number>
  log: (line: string) => void
}): Promise<PluginServices> {
  const upstreams = parseUpstreams(options.mapped)
  const children: ChildProcess[] = []
  for (const name of remotesWithApi()) {
    if (upstreams.has(name)) continue
    const port = await options.freePort()
    const child = spawn(path.join(repoRoot, 'node_modules/.bin/tsx'), ['src/bin/start.ts'], {
      cwd: path.join(remoteDir(name), 'api'),
      env: {
        ...process.env,
        PORT: String(port),
        TESSERA_PUBLIC_ORIGIN: options.publicOrigin,
        TESSERA_JWKS_URL: options.jwksUrl,
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    })
    children.push(child)
    upstreams.set(name, `http://127.0.0.1:${port}`)
    options.log(`started ${name}'s API on http://127.0.0.1:${port}`)
  }
  return {
    upstreams: [...upstreams].map(([name, origin]) => `${name}=${origin}`).join(','),
    async close() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve()
              child.once('exit', () => resolve())
              child.kill('SIGTERM')
            }),
        ),
      )
    },
  }
}
