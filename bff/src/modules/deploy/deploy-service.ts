import {
  ApiError,
  compatibilityProblems,
  remoteDescriptorSchema,
  descriptorDigest,
  type ChannelChange,
  type ChannelState,
  type DeployChannel,
  type DeployEvent,
  type DeployEventKind,
  type RegisterVersionBody,
  type RegisterVersionResponse,
  type RemoteDeployState,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import type { Logger } from '../../platform/logger.ts'
import { ensureRemote } from './tokens.ts'
import type { Deployer } from './tokens.ts'
import type { BuildVerifier } from './verify-build.ts'

/** What the host runs: builds for another contract or React major are refused. */
export interface HostCompatibility {
  contract: number
  shared: Readonly<Record<string, number>>
}

/** The statistics behind an automatic canary rollback, logged with the event. */
export interface CanaryVerdict {
  errorRate: number
  errorClients: number
  servedClients: number
  threshold: number
  minClients: number
  windowSeconds: number
}

export interface DeployService {
  /** Registers an uploaded build; `status` is 201 for a new version, 200 when nothing was new. */
  registerVersion(
    deployer: Deployer,
    body: RegisterVersionBody,
  ): Promise<{ status: 200 | 201; result: RegisterVersionResponse }>
  promote(
    deployer: Deployer,
    remote: string,
    input: { version: string; expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  startCanary(
    deployer: Deployer,
    remote: string,
    input: { version: string; percentage: number; expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  stopCanary(
    deployer: Deployer,
    remote: string,
    input: { expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  /** Moves stable back to the previous good version and withdraws the one it leaves. */
  rollback(
    deployer: Deployer,
    remote: string,
    input: { expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  state(remote: string): Promise<RemoteDeployState>
  /**
   * Stops the canary of `remote` if it still serves `version` (compare-and-swap: an operator's
   * move in between wins) and withdraws that version. Null when there was nothing to stop.
   */
  autoRollbackCanary(
    remote: string,
    version: string,
    verdict: CanaryVerdict,
  ): Promise<ChannelChange | null>
}

type ChannelRow = {
  channel: DeployChannel
  version: string | null
  percentage: number | null
  revision: number
  updated_at: Date
}

function toState(row: ChannelRow): ChannelState {
  return {
    channel: row.channel,
    version: row.version,
    percentage: row.percentage,
    revision: row.revision,
    updatedAt: row.updated_at.toISOString(),
  }
}

/** A move that lost the race, or was made against a revision that is not current any more. */
function revisionConflict(remote: string, current: ChannelRow, expected: number): ApiError {
  return new ApiError('conflict', {
    message: `The ${current.channel} channel of ${remote} is at revision ${current.revision} (serving ${current.version ?? 'nothing'}), not ${expected}: someone moved it meanwhile. Check with "list" and try again.`,
    details: { reason: 'revision_changed', current: toState(current) },
  })
}

function shortSha(sha: string): string {
  return sha.slice(0, 12)
}

/**
 * The registry's writes. Every move of a channel is a compare-and-swap on its revision inside a
 * transaction that also writes the deploy event, so two racing deploys either both apply one
 * after the other (each event naming what it replaced) or the loser gets `conflict`.
 */
export function createDeployService(deps: {
  sql: Sql
  clock: Clock
  logger: Logger
  verifier: BuildVerifier
  host: HostCompatibility
  /** Called after each committed change to what the registry serves. */
  onChange: () => void
}): DeployService {
  const { sql, clock, logger } = deps
  const now = () => new Date(clock.now())

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
    if (row === undefined) throw revisionConflict(remote, from, from.revision)
    return row
  }

  const logEvent = async (
    tx: SqlQueryable,
    event: {
      remote: string
      kind: DeployEventKind
      version: string | null
      fromVersion?: string | null
      percentage?: number | null
      actor: string
      tokenId?: string | null
      details?: Record<string, unknown>
    },
  ): Promise<void> => {
    await execute(
      queries.insertInto('remote_deploy_events').values({
        remote_name: event.remote,
        kind: event.kind,
        version: event.version,
        from_version: event.fromVersion ?? null,
        percentage: event.percentage ?? null,
        actor: event.actor,
        token_id: event.tokenId ?? null,
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

  const checkExpected = (remote: string, row: ChannelRow, expected: number | undefined) => {
    if (expected !== undefined && expected !== row.revision) {
      throw revisionConflict(remote, row, expected)
    }
  }

  const change = (remote: string, before: ChannelRow, after: ChannelRow): ChannelChange => ({
    remote,
    channel: before.channel,
    changed: after.revision !== before.revision,
    before: toState(before),
    after: toState(after),
  })

  /** Runs a channel move and tells readers afterwards (only once it is committed). */
  const committed = async <T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> => {
    const result = await sql.transaction(fn)
    deps.onChange()
    return result
  }

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

  return {
    async registerVersion(deployer, body) {
      const { descriptor } = body
      const remote = descriptor.name
      const baseUrl = body.baseUrl.replace(/\/+$/, '')
      const version = descriptor.version
      const problems = compatibilityProblems(descriptor, deps.host)
      if (problems.length > 0) {
        throw new ApiError('validation_failed', {
          message: problems.map((problem) => problem.message).join(' '),
          details: { issues: problems },
        })
      }
      deps.verifier.checkLocation(descriptor, baseUrl)
      const digest = await descriptorDigest(descriptor)
      const entryUrl = `${baseUrl}/${descriptor.entry}`
      const result = (outcome: RegisterVersionResponse['outcome']): RegisterVersionResponse => ({
        remote,
        version,
        outcome,
        baseUrl,
        entryUrl,
        contentSha256: digest,
      })
      const refuseReuse = (existing: string): never => {
        throw new ApiError('conflict', {
          message: `${remote} ${version} is already registered with other content (sha256 ${shortSha(existing)}…, this build ${shortSha(digest)}…). Versions are immutable: publish this build as a new version.`,
          details: { reason: 'version_exists', registered: existing, submitted: digest },
        })
      }

      const existing = await findVersion(sql, remote, version)
      if (existing !== undefined) {
        if (existing.content_sha256 !== digest) refuseReuse(existing.content_sha256)
        if (existing.base_url === baseUrl) return { status: 200, result: result('unchanged') }
      }
      // The check must be real: every byte is fetched from where hosts will load it.
      await deps.verifier.verify(descriptor, baseUrl)

      const outcome = await sql.transaction(async (tx) => {
        await ensureRemote(tx, remote)
        const { rows } = await execute(
          queries
            .selectFrom('remote_versions')
            .select(['content_sha256', 'base_url'])
            .where('remote_name', '=', remote)
            .where('version', '=', version)
            .forUpdate(),
          tx,
        )
        const current = rows[0]
        if (current === undefined) {
          await execute(
            queries.insertInto('remote_versions').values({
              remote_name: remote,
              version,
              descriptor: JSON.stringify(descriptor),
              content_sha256: digest,
              base_url: baseUrl,
              registered_at: now(),
              registered_by: deployer.tokenId,
            }),
            tx,
          )
          await logEvent(tx, {
            remote,
            kind: 'published',
            version,
            actor: deployer.label,
            tokenId: deployer.tokenId,
            details: { contentSha256: digest, baseUrl },
          })
          return 'registered' as const
        }
        // Registered by a racing request: the same rules apply against what it wrote.
        if (current.content_sha256 !== digest) refuseReuse(current.content_sha256)
        if (current.base_url === baseUrl) return 'unchanged' as const
        await execute(
          queries
            .updateTable('remote_versions')
            .set({ base_url: baseUrl })
            .where('remote_name', '=', remote)
            .where('version', '=', version),
          tx,
        )
        await logEvent(tx, {
          remote,
          kind: 'relocated',
          version,
          actor: deployer.label,
          tokenId: deployer.tokenId,
          details: { from: current.base_url, to: baseUrl },
        })
        return 'relocated' as const
      })
      if (outcome !== 'unchanged') deps.onChange()
      logger.info('remote version registered', { remote, version, outcome, by: deployer.label })
      return { status: outcome === 'registered' ? 201 : 200, result: result(outcome) }
    },

    async promote(deployer, remote, input) {
      return committed(async (tx) => {
        const stable = await lockChannel(tx, remote, 'stable')
        checkExpected(remote, stable, input.expectedRevision)
        await requireVersion(tx, remote, input.version)
        const canary = await lockChannel(tx, remote, 'canary')
        if (stable.version === input.version) return change(remote, stable, stable)
        const after = await moveChannel(tx, remote, stable, {
          version: input.version,
          percentage: null,
        })
        // An explicit promote is the operator's verdict: the version is good again.
        await execute(
          queries
            .updateTable('remote_versions')
            .set({
              last_stable_at: now(),
              last_stable_revision: after.revision,
              withdrawn_at: null,
              withdrawn_reason: null,
            })
            .where('remote_name', '=', remote)
            .where('version', '=', input.version),
          tx,
        )
        await logEvent(tx, {
          remote,
          kind: 'promoted',
          version: input.version,
          fromVersion: stable.version,
          actor: deployer.label,
          tokenId: deployer.tokenId,
        })
        // A canary of the version now stable has nothing left to compare.
        if (canary.version === input.version) {
          await moveChannel(tx, remote, canary, { version: null, percentage: null })
          await logEvent(tx, {
            remote,
            kind: 'canary_stopped',
            version: input.version,
            fromVersion: canary.version,
            actor: deployer.label,
            tokenId: deployer.tokenId,
            details: { reason: 'promoted to stable' },
          })
        }
        return change(remote, stable, after)
      })
    },

    async startCanary(deployer, remote, input) {
      return committed(async (tx) => {
        // Locks are always taken stable first, then canary (as promote does): no deadlock.
        const stable = (await lockChannel(tx, remote, 'stable')).version
        const canary = await lockChannel(tx, remote, 'canary')
        checkExpected(remote, canary, input.expectedRevision)
        await requireVersion(tx, remote, input.version)
        if (stable === null) {
          throw new ApiError('conflict', {
            message: `${remote} has no stable version yet, so a canary would have nothing to fall back to. Promote a version to stable first.`,
            details: { reason: 'no_stable' },
          })
        }
        if (stable === input.version) {
          throw new ApiError('conflict', {
            message: `${remote} ${input.version} is already stable: everyone runs it, so there is nothing to canary.`,
            details: { reason: 'already_stable' },
          })
        }
        if (canary.version === input.version && canary.percentage === input.percentage) {
          return change(remote, canary, canary)
        }
        const after = await moveChannel(tx, remote, canary, {
          version: input.version,
          percentage: input.percentage,
        })
        await logEvent(tx, {
          remote,
          kind: 'canary_started',
          version: input.version,
          fromVersion: canary.version,
          percentage: input.percentage,
          actor: deployer.label,
          tokenId: deployer.tokenId,
          details: { stable, previousPercentage: canary.percentage },
        })
        return change(remote, canary, after)
      })
    },

    async stopCanary(deployer, remote, input) {
      return committed(async (tx) => {
        const canary = await lockChannel(tx, remote, 'canary')
        checkExpected(remote, canary, input.expectedRevision)
        if (canary.version === null) return change(remote, canary, canary)
        const after = await moveChannel(tx, remote, canary, { version: null, percentage: null })
        await logEvent(tx, {
          remote,
          kind: 'canary_stopped',
          version: canary.version,
          fromVersion: canary.version,
          percentage: canary.percentage,
          actor: deployer.label,
          tokenId: deployer.tokenId,
        })
        return change(remote, canary, after)
      })
    },

    async rollback(deployer, remote, input) {
      return committed(async (tx) => {
        const stable = await lockChannel(tx, remote, 'stable')
        checkExpected(remote, stable, input.expectedRevision)
        const target = await previousGood(tx, remote, stable.version)
        if (target === null || stable.version === null) {
          throw new ApiError('conflict', {
            message: `${remote} has no earlier good version to roll back to (stable is ${stable.version ?? 'empty'}). Promote a specific version instead.`,
            details: { reason: 'nothing_to_roll_back' },
          })
        }
        const after = await moveChannel(tx, remote, stable, { version: target, percentage: null })
        await execute(
          queries
            .updateTable('remote_versions')
            .set({ withdrawn_at: now(), withdrawn_reason: `rolled back by ${deployer.label}` })
            .where('remote_name', '=', remote)
            .where('version', '=', stable.version),
          tx,
        )
        await execute(
          queries
            .updateTable('remote_versions')
            .set({ last_stable_at: now(), last_stable_revision: after.revision })
            .where('remote_name', '=', remote)
            .where('version', '=', target),
          tx,
        )
        await logEvent(tx, {
          remote,
          kind: 'rolled_back',
          version: target,
          fromVersion: stable.version,
          actor: deployer.label,
          tokenId: deployer.tokenId,
        })
        return change(remote, stable, after)
      })
    },

    async autoRollbackCanary(remote, version, verdict) {
      const result = await sql.transaction(async (tx) => {
        const canary = await lockChannel(tx, remote, 'canary')
        if (canary.version !== version) return null
        const after = await moveChannel(tx, remote, canary, { version: null, percentage: null })
        const percent = (value: number) => `${Math.round(value * 100)} %`
        await execute(
          queries
            .updateTable('remote_versions')
            .set({
              withdrawn_at: now(),
              withdrawn_reason: `canary stopped automatically: ${verdict.errorClients} of ${verdict.servedClients} clients reported errors (${percent(verdict.errorRate)}, threshold ${percent(verdict.threshold)})`,
            })
            .where('remote_name', '=', remote)
            .where('version', '=', version),
          tx,
        )
        await logEvent(tx, {
          remote,
          kind: 'canary_auto_rolled_back',
          version,
          fromVersion: version,
          percentage: canary.percentage,
          actor: 'canary monitor',
          details: { ...verdict },
        })
        return change(remote, canary, after)
      })
      if (result !== null) {
        deps.onChange()
        logger.warn('canary rolled back automatically', { remote, version, ...verdict })
      }
      return result
    },

    async state(remote) {
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
          kind: row.kind,
          version: row.version,
          fromVersion: row.from_version,
          percentage: row.percentage,
          actor: row.actor,
          details: row.details,
          at: row.created_at.toISOString(),
        })),
      }
    },
  }
}
