/**
 * `npm run remote -- new <name> [--with-api] [--slot <slot>]`: creates `remotes/<name>` from
 * tooling/remote-template. Nothing outside that folder changes: the scripts, the lint boundaries
 * and the end-to-end suite find remotes by their folders, and a running local stack issues the
 * new remote's deploy token as soon as the folder appears (scripts/lib/remote-tokens.ts).
 */
import { existsSync, readFileSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import * as prettier from 'prettier'
import { remoteNameSchema } from '@tessera/contracts/descriptor'
import { slotNames } from '@tessera/contracts/plugin'
import { discoverRemotes, remotesDir, repoRoot } from '../lib/paths.ts'
import type { CliOutput } from './cli.ts'

export const newUsage = `Usage: npm run remote -- new <name> [--with-api] [--slot <slot>]
  <name>        lowercase letters, digits and dashes, 2 to 32 characters, starting with a letter
  --with-api    also create api/: the team's own Hono service behind /api/plugins/<name>
  --slot <slot> also fill one of the host's slots: ${slotNames.join(', ')}`

const templateDir = path.join(repoRoot, 'tooling/remote-template/files')

/**
 * First path segments a remote cannot take: the BFF's own (`/api`, `/assets`, `/.well-known`),
 * the host's, and the founding remotes' base paths. Existing remotes are checked separately.
 */
export const reservedNames = [
  'api',
  'assets',
  'auth',
  'billing',
  'assistant',
  'ai',
  'well-known',
  'host',
  'bff',
  'contracts',
  'e2e',
  'bench',
  'static',
  'index',
  'health',
  'plugins',
  'remotes',
  'events',
  'favicon',
  'robots',
] as const

/** A command line the scaffold cannot follow: exit code 2, nothing created. */
export class ScaffoldError extends Error {
  override name = 'ScaffoldError'
}

export interface ScaffoldOptions {
  name: string
  withApi: boolean
  slot: string | null
}

export function parseNewArgs(argv: readonly string[]): ScaffoldOptions {
  let name: string | undefined
  let withApi = false
  let slot: string | null = null
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]
    if (arg === '--with-api') withApi = true
    else if (arg === '--slot') {
      slot = argv[++index] ?? null
      if (slot === null) throw new ScaffoldError(`--slot needs a slot name.\n\n${newUsage}`)
    } else if (arg?.startsWith('--slot=')) slot = arg.slice('--slot='.length)
    else if (arg?.startsWith('-') || name !== undefined)
      throw new ScaffoldError(`Unknown argument ${arg}.\n\n${newUsage}`)
    else name = arg
  }
  if (name === undefined) throw new ScaffoldError(`Name the remote.\n\n${newUsage}`)
  return { name, withApi, slot }
}

/** What the existing remotes' vite configs say: their base paths and navigation orders. */
function existingRemotes(dir: string): { basePaths: string[]; orders: number[] } {
  const basePaths: string[] = []
  const orders: number[] = []
  for (const name of discoverRemotes(dir)) {
    const config = path.join(dir, name, 'vite.config.ts')
    if (!existsSync(config)) continue
    const text = readFileSync(config, 'utf8')
    const basePath = /basePath:\s*'\/([^']+)'/.exec(text)?.[1]
    if (basePath !== undefined) basePaths.push(basePath)
    const order = /order:\s*(-?\d+)/.exec(text)?.[1]
    if (order !== undefined) orders.push(Number(order))
  }
  return { basePaths, orders }
}

/** Throws a ScaffoldError with a sentence when `name` cannot be a new remote. */
export function validateName(name: string, dir: string = remotesDir): void {
  const parsed = remoteNameSchema.safeParse(name)
  if (!parsed.success) {
    throw new ScaffoldError(
      `"${name}" is not a remote name: it ${parsed.error.issues[0]?.message ?? 'is invalid'}, 2 to 32 characters, starting with a letter (the registry's rule).`,
    )
  }
  if (existsSync(path.join(dir, name))) {
    throw new ScaffoldError(`remotes/${name} already exists. Choose another name.`)
  }
  if ((reservedNames as readonly string[]).includes(name)) {
    throw new ScaffoldError(
      `"${name}" is reserved: /${name} is a path of the platform itself. Choose another name.`,
    )
  }
  if (existingRemotes(dir).basePaths.includes(name)) {
    throw new ScaffoldError(`/${name} is already another remote's base path. Choose another name.`)
  }
}

const pascal = (name: string) =>
  name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')

/** Keeps the lines between `#if <flag>` and `#endif` markers whose flag is on; drops the markers. */
export function applyConditions(text: string, flags: Readonly<Record<string, boolean>>): string {
  const kept: string[] = []
  const open: boolean[] = []
  for (const line of text.split('\n')) {
    const marker = /^\s*(?:\/\/|#) #(if (\S+)|endif)\s*$/.exec(line)
    if (marker?.[2] !== undefined) open.push(flags[marker[2]] === true)
    else if (marker !== null) open.pop()
    else if (open.every(Boolean)) kept.push(line)
  }
  return kept.join('\n')
}

async function templateFiles(dir: string, prefix = ''): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const relative = path.posix.join(prefix, entry.name)
    if (entry.isDirectory())
      files.push(...(await templateFiles(path.join(dir, entry.name), relative)))
    else if (entry.name.endsWith('.tmpl')) files.push(relative)
  }
  return files
}

/** The files of the new remote, path → content, rendered in memory (nothing written yet). */
export async function renderRemote(
  options: ScaffoldOptions,
  context: { orders: number[] },
): Promise<Map<string, string>> {
  const label = options.name
    .split('-')
    .join(' ')
    .replace(/^./, (first) => first.toUpperCase())
  const order = Math.max(0, ...context.orders) + 10
  const values: Record<string, string> = {
    __name__: options.name,
    __Name__: pascal(options.name),
    __Label__: label,
    __order__: String(order),
    __slot__: options.slot ?? '',
  }
  const flags = {
    slot: options.slot !== null,
    api: options.withApi,
  }
  const rendered = new Map<string, string>()
  for (const file of await templateFiles(templateDir)) {
    if (!flags.api && file.startsWith('api/')) continue
    if (!flags.slot && file.startsWith('src/features/slot/')) continue
    const target = file.slice(0, -'.tmpl'.length).replaceAll('__name__', options.name)
    let text = applyConditions(await readFile(path.join(templateDir, file), 'utf8'), flags)
    for (const [placeholder, value] of Object.entries(values)) {
      text = text.replaceAll(placeholder, value)
    }
    // The house formatting, whatever the template's line breaks after placeholders became.
    const config = await prettier.resolveConfig(path.join(repoRoot, 'package.json'))
    rendered.set(target, await prettier.format(text, { ...config, filepath: target }))
  }
  return rendered
}

/** Creates `remotes/<name>`; throws ScaffoldError (and creates nothing) on a bad command line. */
export async function scaffoldRemote(
  options: ScaffoldOptions,
  dir: string = remotesDir,
): Promise<{ dir: string; files: string[] }> {
  validateName(options.name, dir)
  if (options.slot !== null && !(slotNames as readonly string[]).includes(options.slot)) {
    throw new ScaffoldError(
      `"${options.slot}" is not a slot of the host; the slots are ${slotNames.join(', ')}.`,
    )
  }
  const files = await renderRemote(options, { orders: existingRemotes(dir).orders })
  const target = path.join(dir, options.name)
  try {
    for (const [file, text] of files) {
      await mkdir(path.dirname(path.join(target, file)), { recursive: true })
      await writeFile(path.join(target, file), text)
    }
  } catch (error) {
    await rm(target, { recursive: true, force: true })
    throw error
  }
  return { dir: target, files: [...files.keys()].sort() }
}

/** Runs `remote new`; resolves to the exit code (2 for a bad command line, as `remote` does). */
export async function newRemoteCommand(
  argv: readonly string[],
  output: CliOutput = { log: console.log, error: console.error },
  dir: string = remotesDir,
): Promise<number> {
  try {
    const options = parseNewArgs(argv)
    const created = await scaffoldRemote(options, dir)
    const name = options.name
    output.log(`created remotes/${name} (${created.files.length} files)`)
    output.log(`next:`)
    output.log(`  npm test -w remotes/${name}`)
    output.log(`  npm run publish -w remotes/${name}          # with the stack running (npm start)`)
    output.log(`  npm run remote -- promote ${name} 0.1.0`)
    if (options.withApi)
      output.log(`  cd remotes/${name}/api && npm start   # npm start runs it too`)
    return 0
  } catch (error) {
    output.error(error instanceof Error ? error.message : String(error))
    return error instanceof ScaffoldError ? 2 : 1
  }
}
