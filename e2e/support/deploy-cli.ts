// The deploy journeys drive the same commands a team runs (`npm run publish`, `npm run remote`),
// against the worker's private stack (deploy-stack.ts), and read what they print.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { APIRequestContext } from '@playwright/test'
import { repoRoot, type DeployStack } from './deploy-stack.ts'

export interface CommandResult {
  code: number
  /** stdout and stderr, interleaved as they came. */
  output: string
}

/** Runs a command in the repository (or `cwd`) with the stack's deploy environment. */
export function runCommand(
  stack: DeployStack,
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...stack.cliEnv, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code: code ?? 1, output }))
  })
}

/** `npm run remote -- <args>`. */
export function remoteCommand(
  stack: DeployStack,
  args: readonly string[],
  env?: Record<string, string>,
): Promise<CommandResult> {
  return runCommand(stack, 'npm', ['run', '--silent', 'remote', '--', ...args], { env })
}

/** `npm run publish -w remotes/<remote> -- <args>`, publishing the build already in dist/. */
export function publishCommand(
  stack: DeployStack,
  remote: string,
  args: readonly string[],
  env?: Record<string, string>,
): Promise<CommandResult> {
  return runCommand(
    stack,
    'npm',
    ['run', '--silent', 'publish', '-w', `remotes/${remote}`, '--', '--no-build', ...args],
    { env },
  )
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

interface DescriptorFile {
  path: string
  sha256: string
  bytes: number
}
export interface Descriptor {
  name: string
  version: string
  contract: number
  entry: string
  files: DescriptorFile[]
  [key: string]: unknown
}

/** A copy of a remote's build, changed for one journey, in a folder `npm run publish` accepts. */
export interface AlteredBuild {
  /** The remote's stand-in folder (package.json + dist/). */
  dir: string
  descriptor: Descriptor
}

/**
 * Copies `remotes/<remote>/dist` to a folder of the stack's data and lets `alter` change the
 * descriptor and files; the descriptor's hashes follow the changed files unless
 * `keepHashes` (a build whose descriptor no longer matches its files).
 */
export async function alteredBuild(
  stack: DeployStack,
  remote: string,
  name: string,
  alter: (build: { descriptor: Descriptor; files: Map<string, Uint8Array> }) => void,
  options: { keepHashes?: boolean } = {},
): Promise<AlteredBuild> {
  const dir = path.join(stack.dataDir, 'builds', name)
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  await cp(path.join(repoRoot, 'remotes', remote, 'dist'), path.join(dir, 'dist'), {
    recursive: true,
  })
  // The publish command finds the remote's name in package.json, as in the real folder.
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: `@tessera/${remote}`, private: true, type: 'module' }),
  )
  const descriptorPath = path.join(dir, 'dist', 'tessera-remote.json')
  const descriptor = JSON.parse(await readFile(descriptorPath, 'utf8')) as Descriptor
  const files = new Map<string, Uint8Array>()
  for (const file of descriptor.files) {
    files.set(file.path, new Uint8Array(await readFile(path.join(dir, 'dist', file.path))))
  }
  alter({ descriptor, files })
  for (const [file, bytes] of files) {
    await writeFile(path.join(dir, 'dist', file), bytes)
    const entry = descriptor.files.find((candidate) => candidate.path === file)
    if (entry !== undefined && !options.keepHashes) {
      entry.sha256 = sha256(bytes)
      entry.bytes = bytes.byteLength
    }
  }
  await writeFile(descriptorPath, JSON.stringify(descriptor, null, 2))
  return { dir, descriptor }
}

/** Runs the publish command in an altered build's folder. */
export function publishAltered(
  stack: DeployStack,
  build: AlteredBuild,
  args: readonly string[],
  env?: Record<string, string>,
): Promise<CommandResult> {
  return runCommand(
    stack,
    path.join(repoRoot, 'node_modules/.bin/tsx'),
    [path.join(repoRoot, 'scripts/deploy/publish.ts'), '--no-build', ...args],
    { cwd: build.dir, env },
  )
}

/** Every file under a folder, relative to it (for copying a build into storage by hand). */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
}

/** The deploy API with one remote's token, for calls the journeys make without the CLI. */
export function deployApi(request: APIRequestContext, stack: DeployStack, remote: string) {
  const headers = { authorization: `Bearer ${stack.tokens[remote] ?? ''}` }
  const url = (suffix: string) => `${stack.appUrl}/api/deploy/remotes/${remote}${suffix}`
  return {
    state: async () =>
      (await (await request.get(url(''), { headers })).json()) as {
        stable: { version: string | null; revision: number }
        canary: { version: string | null; percentage: number | null; revision: number }
        events: {
          kind: string
          version: string | null
          fromVersion: string | null
          actor: string
        }[]
      },
    post: (suffix: string, data: unknown) => request.post(url(suffix), { headers, data }),
  }
}

/** The snapshot entry of `remote` a visitor with this request context gets. */
export async function servedVersion(
  request: APIRequestContext,
  stack: DeployStack,
  remote: string,
): Promise<string | undefined> {
  const response = await request.get(`${stack.appUrl}/api/remotes`)
  const snapshot = (await response.json()) as { remotes: { name: string; version: string }[] }
  return snapshot.remotes.find((entry) => entry.name === remote)?.version
}

/**
 * Puts the stack's billing back where the stack started it (stable 1.0.0, no canary), so the
 * next journey in this worker starts from there whatever this one left behind.
 */
export async function restoreBilling(request: APIRequestContext, stack: DeployStack) {
  const api = deployApi(request, stack, 'billing')
  const state = await api.state()
  if (state.canary.version !== null) {
    await api.post('/canary/stop', { expectedRevision: state.canary.revision })
  }
  if (state.stable.version !== '1.0.0') {
    await api.post('/promote', { version: '1.0.0' })
  }
}
