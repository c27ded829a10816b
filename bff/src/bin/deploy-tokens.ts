/**
 * `npm run deploy-tokens -- <command>`: the operator's deploy tokens (docs/operations.md).
 *
 *   issue <remote> --label <who>   a new token for one remote; shown once, stored only as a hash
 *   list [<remote>]                the tokens, newest first: label, last use, revoked
 *   revoke <token id>              refused from its next use on
 *
 * It opens the database as the BFF does: DATABASE_URL, or PGlite at PGLITE_DATA_DIR. PGlite takes
 * one process at a time, so locally the stack must be stopped (a running stack has written its
 * tokens to `.tessera/deploy-tokens.json` already).
 */
import '@tessera/contracts/zod-messages'
import { remoteNameSchema } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { z } from 'zod/mini'
import { systemClock } from '../platform/clock.ts'
import { openBffDatabase } from '../platform/database.ts'
import { loadEnv } from '../platform/env.ts'
import type { Env } from '../platform/env.ts'
import { isMain } from '../platform/is-main.ts'
import { localStackHoldsDatabase } from './local-stack-guard.ts'
import { cliActor } from '../modules/deploy/actor.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'
import type { DeployTokenInfo } from '../modules/deploy/tokens.ts'

export interface DeployTokensCommandDeps {
  env: Record<string, string | undefined>
  write: (line: string) => void
  /** Opens the database (tests pass theirs); the BFF's by default. */
  openDatabase?: (env: Env) => Promise<Sql>
  /** Whether a local stack's BFF answers at `origin` (it would hold PGlite). */
  isServing?: (origin: string) => Promise<boolean>
}

/** Input the command refuses, with what to type instead; exit code 2. */
export class UsageError extends Error {}

const USAGE = [
  'Usage: npm run deploy-tokens -- <command>',
  '  issue <remote> --label <who>   a new token for one remote (shown once)',
  '  list [<remote>]                the tokens, newest first',
  '  revoke <token id>              refuse a token from its next use',
]

const labelSchema = z
  .string()
  .check(
    z.trim(),
    z.minLength(1, 'The label is empty: say who the token is for, as in --label "billing CI".'),
    z.maxLength(80, 'A label can have at most 80 characters.'),
  )
const idSchema = z.uuid({ error: 'A token id is a UUID, as `list` prints it.' })

type Command =
  | { name: 'issue'; remote: string; label: string }
  | { name: 'list'; remote?: string }
  | { name: 'revoke'; id: string }

function valid<T>(schema: z.core.$ZodType<T>, value: unknown, what: string): T {
  const parsed = z.safeParse(schema, value)
  if (parsed.success) return parsed.data
  throw new UsageError(`${what}: ${parsed.error.issues[0]?.message ?? 'not valid'}`)
}

function remoteOf(value: string | undefined): string {
  if (value === undefined) throw new UsageError('Name the remote, as in `issue billing`.')
  return valid(remoteNameSchema, value, `The remote "${value}"`)
}

/** The words and the `--label` of a command line; any other option is refused. */
function split(args: readonly string[]): { words: string[]; label?: string } {
  const words: string[] = []
  let label: string | undefined
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!
    if (!arg.startsWith('--')) {
      words.push(arg)
      continue
    }
    const equals = arg.indexOf('=')
    const name = equals === -1 ? arg : arg.slice(0, equals)
    if (name !== '--label') throw new UsageError(`Unknown option ${name}.\n${USAGE.join('\n')}`)
    label = equals === -1 ? args[(index += 1)] : arg.slice(equals + 1)
  }
  return label === undefined ? { words } : { words, label }
}

export function parseCommand(argv: readonly string[]): Command {
  const [name, ...rest] = argv
  const { words, label } = split(rest)
  if (name === 'issue') {
    if (label === undefined)
      throw new UsageError('Say who the token is for, as in `issue billing --label "billing CI"`.')
    if (words.length > 1) throw new UsageError(`One remote at a time: ${USAGE[1]!.trim()}`)
    return { name, remote: remoteOf(words[0]), label: valid(labelSchema, label, 'The label') }
  }
  if (label !== undefined) throw new UsageError(`Only \`issue\` takes a --label.`)
  if (name === 'list') {
    if (words.length > 1) throw new UsageError(`One remote at a time: ${USAGE[2]!.trim()}`)
    return words[0] === undefined ? { name } : { name, remote: remoteOf(words[0]) }
  }
  if (name === 'revoke') {
    if (words.length !== 1) throw new UsageError(`Revoke one token by its id: ${USAGE[3]!.trim()}`)
    return { name, id: valid(idSchema, words[0], 'The token id') }
  }
  throw new UsageError(
    [name === undefined ? 'No command given.' : `Unknown command "${name}".`, ...USAGE].join('\n'),
  )
}

/** To the minute, in UTC. */
const minute = (date: Date | null) =>
  date === null ? '—' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`

/** One line per token, for people. */
export function formatTokens(tokens: readonly DeployTokenInfo[]): string[] {
  if (tokens.length === 0) return ['No deploy tokens.']
  return tokens.map((token) =>
    [
      token.id,
      token.remote.padEnd(10),
      `"${token.label}"`,
      `issued ${minute(token.createdAt)}`,
      `last used ${token.lastUsedAt === null ? 'never' : minute(token.lastUsedAt)}`,
      ...(token.revokedAt === null ? [] : [`REVOKED ${minute(token.revokedAt)}`]),
    ].join('  '),
  )
}

/** Runs the command; returns the exit code (2 for input it refuses). */
export async function runDeployTokensCommand(
  argv: readonly string[],
  deps: DeployTokensCommandDeps,
): Promise<number> {
  let command: Command
  try {
    command = parseCommand(argv)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    deps.write(error.message)
    return 2
  }
  const env = loadEnv(deps.env)
  const held = await localStackHoldsDatabase(
    env,
    'Its tokens are in .tessera/deploy-tokens.json; stop it (Ctrl+C) to manage tokens here.',
    deps.isServing,
  )
  if (held !== null) {
    deps.write(held)
    return 1
  }
  const sql = await (deps.openDatabase ?? (async (e: Env) => (await openBffDatabase(e)).sql))(env)
  try {
    // Audited as `cli:<the system user>`.
    const tokens = createDeployTokens({
      sql,
      clock: systemClock,
      actor: cliActor(deps.env.USER ?? deps.env.USERNAME),
    })
    switch (command.name) {
      case 'issue': {
        const issued = await tokens.issue(command.remote, command.label)
        deps.write(
          `Issued a deploy token for ${command.remote} ("${command.label}"), id ${issued.id}:`,
        )
        deps.write(`  ${issued.token}`)
        deps.write(
          'Give it to the team now: it is stored only as a hash and cannot be shown again.',
        )
        return 0
      }
      case 'list':
        for (const line of formatTokens(await tokens.list(command.remote))) deps.write(line)
        return 0
      case 'revoke':
        if (await tokens.revoke(command.id)) {
          deps.write(`Revoked ${command.id}: it is refused from its next use.`)
          return 0
        }
        deps.write(
          `No live token has the id ${command.id} (see \`list\`; it may be revoked already).`,
        )
        return 1
    }
  } finally {
    await sql.close()
  }
}

if (isMain(import.meta.url)) {
  try {
    process.exitCode = await runDeployTokensCommand(process.argv.slice(2), {
      env: process.env,
      write: (line) => console.log(line),
    })
  } catch (error) {
    console.error(`deploy-tokens failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  }
}
