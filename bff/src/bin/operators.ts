/**
 * `npm run operators -- <command>`: who holds the operator role (docs/operations.md).
 *
 *   grant <email>    make the account with this email an operator
 *   revoke <email>   take the role away
 *   list             every operator, with who granted the role and when
 *
 * Each grant and revoke is in the audit log (source `cli`) and tells every running BFF at once
 * (a `roles` cache invalidation through the live-event outbox). The console's Operators page does
 * the same through the same functions (`OperatorRoles.grant` / `revoke`, operator-roles.ts), with
 * the signed-in operator as the actor. It opens the database as the BFF
 * does: DATABASE_URL, or PGlite at PGLITE_DATA_DIR, which takes one process at a time, so locally
 * the stack must be stopped first.
 */
import type { Operator } from '@tessera/contracts'
import { ApiError } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { z } from 'zod/mini'
import { systemClock } from '../platform/clock.ts'
import { openBffDatabase } from '../platform/database.ts'
import { loadEnv } from '../platform/env.ts'
import type { Env } from '../platform/env.ts'
import { isMain } from '../platform/is-main.ts'
import { localStackHoldsDatabase } from './local-stack-guard.ts'
import { cliActor } from '../modules/deploy/actor.ts'
import type { OperatorActor } from '../modules/deploy/actor.ts'
import { createLiveEvent } from '../modules/events/event-hub.ts'
import { CACHE_INVALIDATE_TYPE } from '../modules/events/cache-invalidation.ts'
import { createOutboxBus } from '../modules/events/event-outbox.ts'
import { createOperatorRoles } from '../modules/console/operator-roles.ts'

export interface OperatorsCommandDeps {
  env: Record<string, string | undefined>
  write: (line: string) => void
  /** Opens the database (tests pass theirs); the BFF's by default. */
  openDatabase?: (env: Env) => Promise<Sql>
  /** Whether a local stack's BFF answers at `origin` (it would hold PGlite). */
  isServing?: (origin: string) => Promise<boolean>
  /** Who runs the command, for the audit log; by default the system user (`USER`). */
  actor?: OperatorActor
}

/** Input the command refuses, with what to type instead; exit code 2. */
export class UsageError extends Error {}

const USAGE = [
  'Usage: npm run operators -- <command>',
  '  grant <email>    make the account with this email an operator',
  '  revoke <email>   take the operator role away',
  '  list             every operator',
]

const emailSchema = z.email({ error: 'This is not an email address.' }).check(z.maxLength(320))

type Command = { name: 'grant' | 'revoke'; email: string } | { name: 'list' }

export function parseCommand(argv: readonly string[]): Command {
  const [name, ...rest] = argv
  const option = rest.find((arg) => arg.startsWith('--'))
  if (option !== undefined) throw new UsageError(`Unknown option ${option}.\n${USAGE.join('\n')}`)
  if (name === 'grant' || name === 'revoke') {
    if (rest.length !== 1) {
      throw new UsageError(`Name one account by its email, as in \`${name} ada@example.com\`.`)
    }
    const parsed = emailSchema.safeParse(rest[0])
    if (!parsed.success) {
      throw new UsageError(`"${rest[0]}": ${parsed.error.issues[0]?.message ?? 'not valid'}`)
    }
    return { name, email: parsed.data }
  }
  if (name === 'list') {
    if (rest.length > 0) throw new UsageError('`list` takes no arguments.')
    return { name }
  }
  throw new UsageError(
    [name === undefined ? 'No command given.' : `Unknown command "${name}".`, ...USAGE].join('\n'),
  )
}

/** One line per operator, for people. */
export function formatOperators(operators: readonly Operator[]): string[] {
  if (operators.length === 0) return ['No operators.']
  return operators.map(
    (operator) =>
      `${operator.email.padEnd(30)}  granted ${operator.grantedAt.slice(0, 16).replace('T', ' ')} UTC by ${operator.grantedBy}`,
  )
}

/** Runs the command; returns the exit code (2 for input it refuses). */
export async function runOperatorsCommand(
  argv: readonly string[],
  deps: OperatorsCommandDeps,
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
    'Stop it (Ctrl+C) to manage operators here.',
    deps.isServing,
  )
  if (held !== null) {
    deps.write(held)
    return 1
  }
  const sql = await (deps.openDatabase ?? (async (e: Env) => (await openBffDatabase(e)).sql))(env)
  try {
    const bus = createOutboxBus(sql)
    const roles = createOperatorRoles({
      sql,
      clock: systemClock,
      publish: (invalidation, tx) =>
        bus.publish(
          {
            topic: 'internal',
            event: createLiveEvent(CACHE_INVALIDATE_TYPE, invalidation, systemClock),
          },
          tx,
        ),
    })
    const actor = deps.actor ?? cliActor(deps.env.USER ?? deps.env.USERNAME)
    switch (command.name) {
      case 'grant': {
        const { outcome } = await roles.grant(command.email, actor)
        deps.write(
          outcome === 'granted'
            ? `${command.email} is now an operator: the console is in their navigation from their next page load.`
            : `${command.email} is an operator already; nothing changed.`,
        )
        return 0
      }
      case 'revoke': {
        const { outcome } = await roles.revoke(command.email, actor)
        deps.write(
          outcome === 'revoked'
            ? `${command.email} is no longer an operator: every console request of theirs is refused from now on.`
            : `${command.email} is not an operator; nothing changed.`,
        )
        return outcome === 'revoked' ? 0 : 1
      }
      case 'list':
        for (const line of formatOperators(await roles.list())) deps.write(line)
        return 0
    }
  } catch (error) {
    if (error instanceof ApiError && error.code === 'not_found') {
      deps.write(error.message)
      return 1
    }
    throw error
  } finally {
    await sql.close()
  }
}

if (isMain(import.meta.url)) {
  try {
    process.exitCode = await runOperatorsCommand(process.argv.slice(2), {
      env: process.env,
      write: (line) => console.log(line),
    })
  } catch (error) {
    console.error(`operators failed: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  }
}
