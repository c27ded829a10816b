import { createHash } from 'node:crypto'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Plugin } from 'vite'
import {
  CONTRACT_MAJOR,
  DESCRIPTOR_FILE,
  remoteDescriptorSchema,
  type RemoteDescriptor,
  type SlotName,
} from '@tessera/contracts'
import { exposedClosure } from './exposed-closure.ts'

/** Where originjs emits the federation entry inside `dist/`, relative to the descriptor. */
export const REMOTE_ENTRY = 'assets/remoteEntry.js'

export interface RemoteFacts {
  name: string
  version: string
  basePath: string
  nav: { label: string; order: number } | null
  slots: SlotName[]
  signedInSlots?: SlotName[]
  publicPaths?: string[]
  firstReads?: string[]
  /** Versions of the shared singletons the build was made against. */
  shared: Record<string, string>
  /** The remote's own API through the BFF (`/api/plugins/<name>`); absent: it has none. */
  api?: { path: string }
  /** Who the remote is for; absent: everyone. */
  audience?: 'everyone' | 'operators'
}

export type RemoteFile = RemoteDescriptor['files'][number]

/** Lists every file under `dir` (except the descriptor) with its sha256 and size, sorted by path. */
export async function hashFiles(dir: string): Promise<RemoteFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const files: RemoteFile[] = []
  for (const entry of entries) {
    if (!entry.isFile()) continue
    const absolute = path.join(entry.parentPath, entry.name)
    // Paths in the descriptor are URL paths: forward slashes on every OS.
    const relative = path.relative(dir, absolute).split(path.sep).join('/')
    if (relative === DESCRIPTOR_FILE) continue
    const bytes = await readFile(absolute)
    files.push({
      path: relative,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.byteLength,
    })
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

/**
 * Builds the descriptor of one remote build and validates it against the contract's schema, so a
 * build can never publish a descriptor the registry would refuse. `preload` lists the files the
 * exposed module needs at once and `routePreload` what its pages load next (see
 * `exposedClosure`); each must be one of `files`.
 */
export function buildDescriptor(
  facts: RemoteFacts,
  files: RemoteFile[],
  builtAt: Date = new Date(),
  preload?: string[],
  routePreload?: string[],
): RemoteDescriptor {
  const candidate = {
    name: facts.name,
    version: facts.version,
    contract: CONTRACT_MAJOR,
    basePath: facts.basePath,
    nav: facts.nav,
    slots: facts.slots,
    ...(facts.signedInSlots ? { signedInSlots: facts.signedInSlots } : {}),
    ...(facts.publicPaths ? { publicPaths: facts.publicPaths } : {}),
    ...(facts.firstReads ? { firstReads: facts.firstReads } : {}),
    entry: REMOTE_ENTRY,
    shared: facts.shared,
    files,
    ...(preload ? { preload } : {}),
    ...(routePreload && routePreload.length > 0 ? { routePreload } : {}),
    builtAt: builtAt.toISOString(),
    ...(facts.api ? { api: facts.api } : {}),
    ...(facts.audience ? { audience: facts.audience } : {}),
  }
  const parsed = remoteDescriptorSchema.safeParse(candidate)
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    )
    throw new Error(`${DESCRIPTOR_FILE} for "${facts.name}" is not valid:\n${problems.join('\n')}`)
  }
  if (!files.some((file) => file.path === REMOTE_ENTRY)) {
    throw new Error(`${DESCRIPTOR_FILE} for "${facts.name}": the build emitted no ${REMOTE_ENTRY}`)
  }
  const missing = [...(preload ?? []), ...(routePreload ?? [])].filter(
    (name) => !files.some((file) => file.path === name),
  )
  if (missing.length > 0) {
    throw new Error(
      `${DESCRIPTOR_FILE} for "${facts.name}": preload names files the build did not emit: ${missing.join(', ')}`,
    )
  }
  return parsed.data
}

/** Hashes everything in `outDir` and writes `tessera-remote.json` beside it. */
export async function writeDescriptor(
  outDir: string,
  facts: RemoteFacts,
  preload?: string[],
  routePreload?: string[],
): Promise<RemoteDescriptor> {
  const descriptor = buildDescriptor(
    facts,
    await hashFiles(outDir),
    new Date(),
    preload,
    routePreload,
  )
  await writeFile(path.join(outDir, DESCRIPTOR_FILE), `${JSON.stringify(descriptor, null, 2)}\n`)
  return descriptor
}

/**
 * Vite plugin: after every file of the build is on disk, writes the remote's descriptor. It runs
 * last so that the hashes cover the bytes other plugins wrote, and fails the build when the
 * descriptor would be invalid. The preload list is read from the final bundle (after
 * federationOutputPlugin pruned it), where the chunks' static imports are known.
 */
export function descriptorPlugin(facts: RemoteFacts): Plugin {
  let outDir = ''
  let preload: string[] = []
  let routePreload: string[] = []
  return {
    name: 'tessera:descriptor',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir)
    },
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const { chunks, css, lazy } = exposedClosure(bundle)
        preload = [...chunks, ...css]
        routePreload = [...lazy.chunks, ...lazy.css]
      },
    },
    writeBundle: {
      order: 'post',
      sequential: true,
      async handler() {
        try {
          await writeDescriptor(outDir, facts, preload, routePreload)
        } catch (error) {
          this.error(error instanceof Error ? error.message : String(error))
        }
      },
    },
  }
}
