/**
 * The registry's writes. Every move of a channel is a compare-and-swap on its revision inside a
 * transaction that also writes the deploy event (channel-store.ts), so two racing deploys either
 * both apply one after the other (each event naming what it replaced) or the loser gets
 * `conflict`. Registering a build is register-version.ts.
 */
import {
  ApiError,
  type ChannelChange,
  type RegisterVersionBody,
  type RegisterVersionResponse,
  type RemoteDeployState,
} from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import type { Logger } from '../../platform/logger.ts'
import { createChannelStore } from './channel-store.ts'
import type { HostCompatibility } from './channel-store.ts'
import { createVersionRegistration } from './register-version.ts'
import type { Deployer } from './tokens.ts'
import type { DeployActor } from './actor.ts'
import type { BuildVerifier } from './verify-build.ts'

export type { HostCompatibility } from './channel-store.ts'

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
    deployer: DeployActor,
    remote: string,
    input: { version: string; expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  startCanary(
    deployer: DeployActor,
    remote: string,
    input: { version: string; percentage: number; expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  stopCanary(
    deployer: DeployActor,
    remote: string,
    input: { expectedRevision?: number | undefined },
  ): Promise<ChannelChange>
  /** Moves stable back to the previous good version and withdraws the one it leaves. */
  rollback(
    deployer: DeployActor,
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

export function createDeployService(deps: {
  sql: Sql
  clock: Clock
  logger: Logger
  verifier: BuildVerifier
  host: HostCompatibility
  /** Whether the operator mapped an upstream for this plugin's API (`PLUGIN_UPSTREAMS`). */
  hasPluginUpstream?: (name: string) => boolean
  /** Called after each committed change to what the registry serves. */
  onChange: () => void
  /**
   * Runs in the transaction of every channel move, before it commits: the live event about it
   * is written with it (docs/decisions/018).
   */
  inTransaction?: (tx: SqlQueryable) => Promise<void>
}): DeployService {
  const { sql, logger } = deps
  const store = createChannelStore({ clock: deps.clock, host: deps.host })
  const {
    now,
    lockChannel,
    moveChannel,
    logEvent,
    requireVersion,
    checkExpected,
    change,
    previousGood,
  } = store

  /** Runs a channel move and tells readers afterwards (only once it is committed). */
  const committed = async <T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> => {
    const result = await sql.transaction(async (tx) => {
      const moved = await fn(tx)
      await deps.inTransaction?.(tx)
      return moved
    })
    deps.onChange()
    return result
  }

  return {
    registerVersion: createVersionRegistration({ ...deps, store }),

    async promote(deployer, remote, input) {
      return committed(async (tx) => {
        const stable = await lockChannel(tx, remote, 'stable')
        await checkExpected(tx, remote, stable, input.expectedRevision)
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
          by: deployer,
        })
        // A canary of the version now stable has nothing left to compare.
        if (canary.version === input.version) {
          await moveChannel(tx, remote, canary, { version: null, percentage: null })
          await logEvent(tx, {
            remote,
            kind: 'canary_stopped',
            version: input.version,
            fromVersion: canary.version,
            by: deployer,
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
        await checkExpected(tx, remote, canary, input.expectedRevision)
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
          by: deployer,
          details: { stable, previousPercentage: canary.percentage },
        })
        return change(remote, canary, after)
      })
    },

    async stopCanary(deployer, remote, input) {
      return committed(async (tx) => {
        const canary = await lockChannel(tx, remote, 'canary')
        await checkExpected(tx, remote, canary, input.expectedRevision)
        if (canary.version === null) return change(remote, canary, canary)
        const after = await moveChannel(tx, remote, canary, { version: null, percentage: null })
        await logEvent(tx, {
          remote,
          kind: 'canary_stopped',
          version: canary.version,
          fromVersion: canary.version,
          percentage: canary.percentage,
          by: deployer,
        })
        return change(remote, canary, after)
      })
    },

    async rollback(deployer, remote, input) {
      return committed(async (tx) => {
        const stable = await lockChannel(tx, remote, 'stable')
        await checkExpected(tx, remote, stable, input.expectedRevision)
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
          by: deployer,
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
          by: { source: 'monitor' },
          details: { ...verdict },
        })
        await deps.inTransaction?.(tx)
        return change(remote, canary, after)
      })
      if (result !== null) {
        deps.onChange()
        logger.warn('canary rolled back automatically', { remote, version, ...verdict })
      }
      return result
    },

    state: (remote) => store.readState(sql, remote),
  }
}
