/**
 * The registry's tables as the deploy service moves them: channels locked and moved by
 * compare-and-swap on their revision, versions looked up and checked against the host, deploy
 * events written, and a remote's whole state read back.
 */
import {
  ApiError,
  compatibilityProblems,
  deployEventKinds,
  remoteDescriptorSchema,
  type AuditKind,
  type ChannelChange,
  type ChannelState,
  type ConsoleConflictDetails,
  type DeployChannel,
  type DeployEvent,
  type DeployEventKind,
  type RemoteDeployState,
} from '@tessera/contracts'
import type { SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import { auditFieldsOf } from './actor.ts'
import type { AuditActor } from './actor.ts'

/** What the host runs: builds for another contract or React major are refused. */
export interface HostCompatibility {
  contract: number
  shared: Readonly<Record<string, number>>
}

export type ChannelRow = {
  channel: DeployChannel
  version: string | null
  percentage: number | null
  revision: number
  updated_at: Date
}

export function toState(row: ChannelRow): ChannelState {
  return {
    channel: row.channel,
    version: row.version,
    percentage: row.percentage,
    revision: row.revision,
    updatedAt: row.updated_at.toISOString(),
  }
}

/** The kinds of event that move each channel (a promote that stops the canary logs that too). */
const channelKinds: Record<DeployChannel, DeployEventKind[]> = {
  stable: ['promoted', 'rolled_back'],
  canary: ['canary_started', 'canary_stopped', 'canary_auto_rolled_back'],
}

/** A time as the conflict sentence shows it: to the second, in UTC. */
export function conflictTime(iso: string): string {
  return `${iso.slice(0, 19).replace('T', ' ')} UTC`
}

/**
 * A move that lost the race, or was made against a revision that is not current any more: says
 * who moved the channel last and when (`ConsoleConflictDetails`), for the console and the CLI.
 */
async function revisionConflict(
  tx: SqlQueryable,
  remote: string,
  current: ChannelRow,
  expected: number,
): Promise<ApiError> {
  const { rows } = await execute(
    queries
      .selectFrom('remote_deploy_events')
      .select(['actor', 'created_at'])
      .where('remote_name', '=', remote)
      .where('kind', 'in', channelKinds[current.channel])
      .orderBy('id', 'desc')
      .limit(1),
    tx,
  )
  const last = rows[0]
  const details: ConsoleConflictDetails = {
    remote,
    channel: current.channel,
    expectedRevision: expected,
    revision: current.revision,
    changedBy: last?.actor ?? null,
    changedAt: (last?.created_at ?? current.updated_at).toISOString(),
  }
  return new ApiError('conflict', {
    message: `Changed by ${details.changedBy ?? 'someone else'} at ${conflictTime(details.changedAt ?? '')}; reload to see it. The ${current.channel} channel of ${remote} is at revision ${current.revision} (serving ${current.version ?? 'nothing'}), not ${expected}, so nothing was applied.`,
    details: { reason: 'revision_changed', current: toState(current), ...details },
  })
}

export type ChannelStore = ReturnType<typeof createChannelStore>

export function createChannelStore(deps: { clock: Clock; host: HostCompatibility }) {
  const now = () => new Date(deps.clock.now())

  const lockChannel = async (
    tx: SqlQueryable,
    remote: string,
    channel: DeployChannel,
  ): Promise<ChannelRow> => {
    const { rows } = await execute(
      queries
        .selectFrom('remote_channels')
        .select(['channel', 'version', 'percentage', 'revision', 'updated_at'])
        .where('remote_name', '=', remote)
        .where('channel', '=', channel)
        .forUpdate(),
      tx,
    )
    const row = rows[0]
    if (row === undefined) {
      throw new ApiError('not_found', {
        message: `${remote} has no ${channel} channel yet: publish a version of it first.`,
      })
    }
    return row
  }

  /** Moves a channel if it is still at `from.revision`; the caller's expectation is checked first. */
  const moveChannel = async (
    tx: SqlQueryable,
    remote: string,
    from: ChannelRow,
    to: { version: string | null; percentage: number | null },
  ): Promise<ChannelRow> => {
    const { rows } = await execute(
      queries
        .updateTable('remote_channels')
        .set((eb) => ({
          version: to.version,
          percentage: to.percentage,
          revision: eb('revision', '+', 1),
          updated_at: now(),
        }))
        .where('remote_name', '=', remote)
        .where('channel', '=', from.channel)
        .where('revision', '=', from.revision)
        .returning(['channel', 'version', 'percentage', 'revision', 'updated_at']),
      tx,
    )
    const row = rows[0]
    // Only possible when another transaction moved it between our read and write.
    if (row === undefined) throw await revisionConflict(tx, remote, from, from.revision)
    return row
  }

  const logEvent = async (
    tx: SqlQueryable,
    event: {
      /** Null only for a change of the operator role. */
      remote: string | null
      kind: AuditKind
      version: string | null
      fromVersion?: string | null
      percentage?: number | null
      by: AuditActor
      details?: Record<string, unknown>
    },
  ): Promise<void> => {
    const who = auditFieldsOf(event.by)
    await execute(
      queries.insertInto('remote_deploy_events').values({
        remote_name: event.remote,
        kind: event.kind,
        version: event.version,
        from_version: event.fromVersion ?? null,
        percentage: event.percentage ?? null,
        actor: who.actor,
        token_id: who.tokenId,
        operator_id: who.operatorId,
        source: who.source,
        details: JSON.stringify(event.details ?? {}),
        created_at: now(),
      }),
      tx,
    )
  }

  const findVersion = async (tx: SqlQueryable, remote: string, version: string) => {
    const { rows } = await execute(
      queries
        .selectFrom('remote_versions')
        .select(['version', 'content_sha256', 'base_url', 'descriptor', 'withdrawn_at'])
        .where('remote_name', '=', remote)
        .where('version', '=', version),
      tx,
    )
    return rows[0]
  }

  const requireVersion = async (tx: SqlQueryable, remote: string, version: string) => {
    const row = await findVersion(tx, remote, version)
    if (row === undefined) {
      throw new ApiError('not_found', {
        message: `${remote} ${version} is not registered. Publish it first (npm run publish -w remotes/${remote}).`,
      })
    }
    // The host may have moved on since the build was registered: never serve what it cannot run.
    const descriptor = remoteDescriptorSchema.safeParse(row.descriptor)
    const problems = descriptor.success
      ? compatibilityProblems(descriptor.data, deps.host)
      : [
          {
            path: 'version',
            message: `The registered descriptor of ${remote} ${version} is no longer valid; publish a new build.`,
          },
        ]
    if (problems.length > 0) {
      throw new ApiError('validation_failed', {
        message: problems.map((problem) => problem.message).join(' '),
        details: { issues: problems },
      })
    }
    return row
  }

  const checkExpected = async (
    tx: SqlQueryable,
    remote: string,
    row: ChannelRow,
    expected: number | undefined,
  ) => {
    if (expected !== undefined && expected !== row.revision) {
      throw await revisionConflict(tx, remote, row, expected)
    }
  }

  const change = (remote: string, before: ChannelRow, after: ChannelRow): ChannelChange => ({
    remote,
    channel: before.channel,
    changed: after.revision !== before.revision,
    before: toState(before),
    after: toState(after),
  })

  const previousGood = async (tx: SqlQueryable, remote: string, stable: string | null) => {
    let query = queries
      .selectFrom('remote_versions')
      .select(['version'])
      .where('remote_name', '=', remote)
      .where('last_stable_revision', 'is not', null)
      .where('withdrawn_at', 'is', null)
      .orderBy('last_stable_revision', 'desc')
      .limit(1)
    if (stable !== null) query = query.where('version', '<>', stable)
    const { rows } = await execute(query, tx)
    return rows[0]?.version ?? null
  }

  /** A remote's channels, versions and latest events. */
  async function readState(sql: SqlQueryable, remote: string): Promise<RemoteDeployState> {
    const [channels, versions, events] = await Promise.all([
      execute(
        queries
          .selectFrom('remote_channels')
          .select(['channel', 'version', 'percentage', 'revision', 'updated_at'])
          .where('remote_name', '=', remote),
        sql,
      ),
      execute(
        queries
          .selectFrom('remote_versions')
          .select([
            'version',
            'content_sha256',
            'base_url',
            'registered_at',
            'last_stable_at',
            'withdrawn_at',
            'withdrawn_reason',
          ])
          .where('remote_name', '=', remote)
          .orderBy('registered_at', 'desc')
          .orderBy('version', 'desc'),
        sql,
      ),
      execute(
        queries
          .selectFrom('remote_deploy_events')
          .select([
            'id',
            'kind',
            'version',
            'from_version',
            'percentage',
            'actor',
            'details',
            'created_at',
          ])
          .where('remote_name', '=', remote)
          .where('kind', 'in', [...deployEventKinds])
          .orderBy('id', 'desc')
          .limit(20),
        sql,
      ),
    ])
    const empty = (channel: DeployChannel): ChannelState => ({
      channel,
      version: null,
      percentage: null,
      revision: 0,
      updatedAt: new Date(0).toISOString(),
    })
    const find = (channel: DeployChannel) => {
      const row = channels.rows.find((candidate) => candidate.channel === channel)
      return row === undefined ? empty(channel) : toState(row)
    }
    const stable = find('stable')
    return {
      remote,
      stable,
      canary: find('canary'),
      previousGood: await previousGood(sql, remote, stable.version),
      versions: versions.rows.map((row) => ({
        version: row.version,
        contentSha256: row.content_sha256,
        baseUrl: row.base_url,
        registeredAt: row.registered_at.toISOString(),
        lastStableAt: row.last_stable_at?.toISOString() ?? null,
        withdrawnAt: row.withdrawn_at?.toISOString() ?? null,
        withdrawnReason: row.withdrawn_reason,
      })),
      events: events.rows.map((row): DeployEvent => ({
        id: row.id,
        kind: row.kind as DeployEventKind,
        version: row.version,
        fromVersion: row.from_version,
        percentage: row.percentage,
        actor: row.actor,
        details: row.details,
        at: row.created_at.toISOString(),
      })),
    }
  }

  return {
    now,
    lockChannel,
    moveChannel,
    logEvent,
    findVersion,
    requireVersion,
    checkExpected,
    change,
    previousGood,
    readState,
  }
}
