/**
 * `npm run publish -w remotes/<name> [-- --version <v>] [--no-build]`: builds the remote, checks
 * its descriptor, uploads its files to storage under `<name>/<version>/…` and registers the
 * version with the team's deploy token. It does not change what users get: promote or canary
 * the version afterwards (`npm run remote`).
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { run } from '../lib/build.ts'
import { consoleOutput, isMain, reportFailure } from './cli.ts'
import type { CliOutput } from './cli.ts'
import { createDeployApi } from './deploy-api.ts'
import { readDeployConfig } from './deploy-config.ts'
import { tokenFor } from './local-tokens.ts'
import { PublishError, publishBuild } from './publish-build.ts'
import { storageDriver } from './storage.ts'

export const publishUsage = `Usage: npm run publish -w remotes/<name> [-- --version <version>] [--no-build]
  --version <version>  publish this build as <version> (previews, tests); default: package.json's
  --no-build           publish the build already in dist/ instead of building first
Environment: TESSERA_API_URL, TESSERA_DEPLOY_TOKEN, TESSERA_STORAGE (directory | supabase) and
its settings (TESSERA_STORAGE_DIR, TESSERA_STORAGE_URL; SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY,
TESSERA_STORAGE_BUCKET).`

function parseArgs(argv: readonly string[]): { version?: string; build: boolean } {
  let version: string | undefined
  let build = true
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === '--version') {
      version = argv[++index]
      if (version === undefined)
        throw new PublishError(`--version needs a value.\n\n${publishUsage}`)
    } else if (arg?.startsWith('--version=')) {
      version = arg.slice('--version='.length)
    } else if (arg === '--no-build') {
      build = false
    } else {
      throw new PublishError(`Unknown argument ${arg}.\n\n${publishUsage}`)
    }
  }
  return { ...(version === undefined ? {} : { version }), build }
}

/** The remote whose folder `dir` is: its package is `@tessera/<name>`. */
async function remoteOf(dir: string): Promise<string> {
  let name: unknown
  try {
    name = (
      JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown }
    ).name
  } catch (error) {
    throw new PublishError(
      `Run this in a remote's folder (npm run publish -w remotes/<name>); ${dir} has no readable package.json (${error instanceof Error ? error.message : String(error)}).`,
    )
  }
  const match = typeof name === 'string' ? /^@tessera\/([a-z][a-z0-9-]+)$/.exec(name) : null
  if (match?.[1] === undefined || ['host', 'bff', 'contracts', 'e2e', 'bench'].includes(match[1])) {
    throw new PublishError(
      `${dir} is not a remote's folder: run npm run publish -w remotes/<name>.`,
    )
  }
  return match[1]
}

/** Runs the command in the remote's folder `cwd`; resolves to the process exit code. */
export async function publishCommand(
  argv: readonly string[],
  options: {
    cwd?: string
    env?: Record<string, string | undefined>
    output?: CliOutput
  } = {},
): Promise<number> {
  const output = options.output ?? consoleOutput
  const cwd = options.cwd ?? process.cwd()
  try {
    const args = parseArgs(argv)
    const remote = await remoteOf(cwd)
    const config = readDeployConfig(options.env ?? process.env)
    const token = await tokenFor(remote, { ...config, waitMs: 3000 })
    if (args.build) await run('npm', ['run', 'build'], { cwd })
    const published = await publishBuild({
      dist: path.join(cwd, 'dist'),
      storage: storageDriver(config.storage),
      api: createDeployApi({ apiUrl: config.apiUrl, token }),
      ...(args.version === undefined ? {} : { version: args.version }),
      log: output.log,
    })
    const { result } = published
    const what =
      result.outcome === 'registered'
        ? 'registered'
        : result.outcome === 'relocated'
          ? 'already registered; now served from'
          : 'already registered, unchanged:'
    output.log(`${remote} ${result.version} ${what} ${result.entryUrl}`)
    output.log(
      `next: npm run remote -- promote ${remote} ${result.version}   (or: canary ${remote} ${result.version} 10)`,
    )
    return 0
  } catch (error) {
    reportFailure(error, output)
    return 1
  }
}

if (isMain(import.meta.url)) process.exitCode = await publishCommand(process.argv.slice(2))
