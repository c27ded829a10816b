import { remoteNameSchema, semverSchema } from '@tessera/contracts'
import type {
  ChannelChange,
  ChannelState,
  DeployEvent,
  RemoteDeployState,
} from '@tessera/contracts'
import { DeployApiError } from './deploy-api.ts'
import type { DeployApi } from './deploy-api.ts'

/** What `npm run remote -- …` was asked to do. */
export type Operation =
  | { kind: 'list'; remote: string }
  | { kind: 'promote'; remote: string; version: string; expectRevision?: number }
  | {
      kind: 'canary'
      remote: string
      version: string
      percentage: number
      expectRevision?: number
    }
  | { kind: 'canary-stop'; remote: string; expectRevision?: number }
  | { kind: 'rollback'; remote: string; expectRevision?: number }

export const usage = `Usage: npm run remote -- <command>
  new <name> [--with-api] [--slot <slot>] create remotes/<name> from the template (see docs/plugins.md)
  list <remote>                          channels, versions and recent deploys
  promote <remote> <version>             make <version> stable for everyone
  canary <remote> <version> <percent>    serve <version> to a sticky <percent> of users
  canary <remote> stop                   stop the canary (its users go back to stable)
  rollback <remote>                      move stable back to the previous good version
Options:
  --expect-revision <n>   move only if the channel is still at revision <n> (no retry)
Environment: TESSERA_API_URL (default http://localhost:8787), TESSERA_DEPLOY_TOKEN (the remote's
token; with the local stack, <TESSERA_DATA_DIR>/deploy-tokens.json is used when unset).`

/** A command line that does not say what to do; the message ends with the usage. */
export class UsageError extends Error {
  override name = 'UsageError'
}

function refuse(message: string): never {
  throw new UsageError(`${message}\n\n${usage}`)
}

function remoteArg(value: string | undefined): string {
  if (value === undefined) refuse('Name the remote (auth, billing, ai, …).')
  if (!remoteNameSchema.safeParse(value).success) refuse(`"${value}" is not a remote name.`)
  return value
}

function versionArg(value: string | undefined): string {
  if (value === undefined) refuse('Name the version (like 1.2.3).')
  if (!semverSchema.safeParse(value).success) refuse(`"${value}" is not a version like 1.2.3.`)
  return value
}

/** Parses `npm run remote -- …` arguments; throws `UsageError` with a sentence. */
export function parseOperation(argv: readonly string[]): Operation {
  const args: string[] = []
  let expectRevision: number | undefined
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string
    if (arg === '--expect-revision') {
      const value = argv[++index]
      if (value === undefined || !/^\d+$/.test(value)) {
        refuse('--expect-revision needs a revision number.')
      }
      expectRevision = Number(value)
    } else if (arg === '--help' || arg === '-h') {
      refuse('')
    } else if (arg.startsWith('--')) {
      refuse(`Unknown option ${arg}.`)
    } else {
      args.push(arg)
    }
  }
  const [command, ...rest] = args
  const expect = expectRevision === undefined ? {} : { expectRevision }
  const extra = (count: number) => {
    if (rest.length > count) refuse(`Too many arguments for ${command}: ${rest.join(' ')}.`)
  }
  switch (command) {
    case 'list':
      extra(1)
      return { kind: 'list', remote: remoteArg(rest[0]) }
    case 'promote':
      extra(2)
      return {
        kind: 'promote',
        remote: remoteArg(rest[0]),
        version: versionArg(rest[1]),
        ...expect,
      }
    case 'canary': {
      const remote = remoteArg(rest[0])
      if (rest[1] === 'stop') {
        extra(2)
        return { kind: 'canary-stop', remote, ...expect }
      }
      extra(3)
      const version = versionArg(rest[1])
      const percent = rest[2]?.replace(/%$/, '')
      if (percent === undefined || !/^\d+$/.test(percent) || +percent < 1 || +percent > 100) {
        refuse('Give the canary a share of users from 1 to 100 (percent).')
      }
      return { kind: 'canary', remote, version, percentage: Number(percent), ...expect }
    }
    case 'rollback':
      extra(1)
      return { kind: 'rollback', remote: remoteArg(rest[0]), ...expect }
    case undefined:
      return refuse('Say what to do.')
    default:
      return refuse(`Unknown command "${command}".`)
  }
}

function describeChannel(state: ChannelState): string {
  if (state.version === null) return 'none'
  return state.channel === 'canary' && state.percentage !== null
    ? `${state.version} at ${state.percentage} %`
    : state.version
}

/** One line saying what a channel move did: `billing stable: 1.0.0 → 1.1.0 (revision 3 → 4)`. */
export function describeChange(change: ChannelChange): string {
  const head = `${change.remote} ${change.channel}`
  if (!change.changed) {
    return `${head}: already ${describeChannel(change.after)} (revision ${change.after.revision}); nothing changed`
  }
  return `${head}: ${describeChannel(change.before)} → ${describeChannel(change.after)} (revision ${change.before.revision} → ${change.after.revision})`
}

function describeEvent(event: DeployEvent): string {
  const version = event.version ?? ''
  const what: Record<DeployEvent['kind'], string> = {
    published: `published ${version}`,
    relocated: `moved ${version} to other storage`,
    promoted: `promoted ${version}${event.fromVersion ? ` (was ${event.fromVersion})` : ''}`,
    rolled_back: `rolled back to ${version} from ${event.fromVersion ?? '?'}`,
    canary_started: `started canary ${version} at ${event.percentage ?? '?'} %`,
    canary_stopped: `stopped canary ${version}`,
    canary_auto_rolled_back: `stopped canary ${version} automatically (error rate ${Math.round(
      Number(event.details.errorRate ?? 0) * 100,
    )} %: ${String(event.details.errorClients ?? '?')} of ${String(event.details.servedClients ?? '?')} clients)`,
  }
  return `${event.at}  ${what[event.kind]} by ${event.actor}`
}

/** The `list` output: channels, what rollback would do, versions, recent events. */
export function describeState(state: RemoteDeployState): string[] {
  const lines = [
    `${state.remote}`,
    `  stable   ${describeChannel(state.stable)} (revision ${state.stable.revision})`,
    `  canary   ${describeChannel(state.canary)} (revision ${state.canary.revision})`,
    `  rollback ${state.previousGood === null ? 'nothing to roll back to' : `would go to ${state.previousGood}`}`,
    `  versions (newest first):`,
  ]
  if (state.versions.length === 0) lines.push('    none yet')
  for (const version of state.versions) {
    const notes = [
      state.stable.version === version.version ? 'stable' : null,
      state.canary.version === version.version ? 'canary' : null,
      version.withdrawnAt !== null ? `withdrawn: ${version.withdrawnReason ?? ''}` : null,
      version.lastStableAt !== null && state.stable.version !== version.version
        ? `was stable ${version.lastStableAt}`
        : null,
    ].filter((note) => note !== null)
    lines.push(
      `    ${version.version.padEnd(24)} registered ${version.registeredAt}${notes.length > 0 ? ` · ${notes.join(' · ')}` : ''}`,
    )
  }
  lines.push('  recent deploys:')
  if (state.events.length === 0) lines.push('    none yet')
  for (const event of state.events.slice(0, 10)) lines.push(`    ${describeEvent(event)}`)
  return lines
}

/**
 * Runs one operation against the deploy API. Moves are compare-and-swap: the channel's revision
 * is read first and the move names it, so "before" is exactly what was replaced. When another
 * deploy moved the channel in between, the move is retried on the new state (up to 3 times) and
 * says so, unless `--expect-revision` asked for exactly one revision.
 */
export async function runOperation(
  api: DeployApi,
  operation: Operation,
  log: (line: string) => void,
): Promise<ChannelChange | RemoteDeployState> {
  if (operation.kind === 'list') {
    const state = await api.state(operation.remote)
    for (const line of describeState(state)) log(line)
    return state
  }
  const { remote } = operation
  for (let attempt = 1; ; attempt++) {
    const state = await api.state(remote)
    const channel =
      operation.kind === 'canary' || operation.kind === 'canary-stop' ? 'canary' : 'stable'
    const revision = operation.expectRevision ?? state[channel].revision
    try {
      const change = await (() => {
        switch (operation.kind) {
          case 'promote':
            return api.promote(remote, operation.version, revision)
          case 'canary':
            return api.startCanary(remote, operation.version, operation.percentage, revision)
          case 'canary-stop':
            return api.stopCanary(remote, revision)
          case 'rollback':
            return api.rollback(remote, revision)
        }
      })()
      log(describeChange(change))
      if (operation.kind === 'rollback' && change.changed && change.before.version !== null) {
        log(`${remote} ${change.before.version} is withdrawn: rollback will not pick it again.`)
      }
      return change
    } catch (error) {
      const raced =
        error instanceof DeployApiError &&
        error.reason === 'revision_changed' &&
        operation.expectRevision === undefined &&
        attempt < 3
      if (!raced) throw error
      log(`${remote} ${channel} was moved by someone else meanwhile; trying again on the new state`)
    }
  }
}
