/**
 * What the console reads, read as the signed-in user (`withUser`): the registry's read policies
 * let only operators see any row (20261126090000_operators_and_console.sql), so the role is
 * enforced by the database as well as by the routes' guard.
 */
import {
  ApiError,
  remoteDescriptorSchema,
  type AuditQuery,
  type AuditResponse,
  type ChannelState,
  type ConsoleRemote,
  type ConsoleRemoteDetail,
  type ConsoleToken,
  type ConsoleVersion,
  type DeployChannel,
  type PublishCheck,
  type VersionTraffic,
} from '@tessera/contracts'
import type { Sql, SqlTransaction } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import { createChannelStore, toState } from '../deploy/channel-store.ts'
import { toAuditEntry } from './audit.ts'
import type { AuditRow } from './audit.ts'
import type { TrafficStore } from './traffic.ts'

export interface ConsoleStore {
  remotes(claims: UserClaims): Promise<ConsoleRemote[]>
  /** Null when there is no such remote (or the user may not see it). */
  remote(claims: UserClaims, name: string): Promise<ConsoleRemoteDetail | null>
  audit(claims: UserClaims, query: AuditQuery): Promise<AuditResponse>
  tokens(claims: UserClaims): Promise<ConsoleToken[]>
}

type VersionRow = {
  remote_name: string
  version: string
  descriptor: unknown
  content_sha256: string
  registered_at: Date
  published_by: string | null
  last_stable_at: Date | null
  withdrawn_at: Date | null
  withdrawn_reason: string | null
  checks: unknown
}

const emptyChannel = (channel: DeployChannel): ChannelState => ({
  channel,
  version: null,
  percentage: null,
  revision: 0,
  updatedAt: new Date(0).toISOString(),
})

const bytesOf = (descriptor: unknown): number | null => {
  const parsed = remoteDescriptorSchema.safeParse(descriptor)
  return parsed.success ? parsed.data.files.reduce((sum, file) => sum + file.bytes, 0) : null
}

const contractOf = (descriptor: unknown): number | null => {
  const parsed = remoteDescriptorSchema.safeParse(descriptor)
  return parsed.success ? parsed.data.contract : null
}

const checksOf = (value: unknown): PublishCheck[] =>
  Array.isArray(value)
    ? value.flatMap((check: unknown) => {
        if (typeof check !== 'object' || check === null) return []
        const { name, passed, detail } = check as Record<string, unknown>
        if (typeof name !== 'string' || typeof passed !== 'boolean') return []
        return [{ name, passed, detail: typeof detail === 'string' ? detail : null }]
      })
    : []

export function createConsoleStore(deps: {
  sql: Sql
  clock: Clock
  logger: Logger
  traffic: TrafficStore
}): ConsoleStore {
  const { sql, logger } = deps
  const channelStore = createChannelStore({ clock: deps.clock, host: { contract: 0, shared: {} } })
  const read = <T>(claims: UserClaims, fn: (tx: SqlTransaction) => Promise<T>) =>
    withUser(sql, claims, fn, { readOnly: true })

  /** Channels, versions and who published each, of one remote or all of them. */
  const registryRows = async (tx: SqlTransaction, remote?: string) => {
    let remotes = queries.selectFrom('remotes').select('name').orderBy('name')
    let channels = queries
      .selectFrom('remote_channels')
      .select(['remote_name', 'channel', 'version', 'percentage', 'revision', 'updated_at'])
    let versions = queries
      .selectFrom('remote_versions')
      .select([
        'remote_name',
        'version',
        'descriptor',
        'content_sha256',
        'registered_at',
        'published_by',
        'last_stable_at',
        'withdrawn_at',
        'withdrawn_reason',
        'checks',
      ])
      .orderBy('registered_at', 'desc')
      .orderBy('version', 'desc')
    // Builds registered before `published_by` existed: their publish event names who.
    let published = queries
      .selectFrom('remote_deploy_events')
      .select(['remote_name', 'version', 'actor'])
      .where('kind', '=', 'published')
    if (remote !== undefined) {
      remotes = remotes.where('name', '=', remote)
      channels = channels.where('remote_name', '=', remote)
      versions = versions.where('remote_name', '=', remote)
      published = published.where('remote_name', '=', remote)
    }
    const [r, c, v, p] = await Promise.all([
      execute(remotes, tx),
      execute(channels, tx),
      execute(versions, tx),
      execute(published, tx),
    ])
    const publishers = new Map(
      p.rows.map((row) => [`${row.remote_name}@${row.version}`, row.actor]),
    )
    return { names: r.rows.map((row) => row.name), channels: c.rows, versions: v.rows, publishers }
  }

  type Rows = Awaited<ReturnType<typeof registryRows>>

  const publisherOf = (rows: Rows, version: VersionRow): string | null =>
    version.published_by ?? rows.publishers.get(`${version.remote_name}@${version.version}`) ?? null

  const summarize = (rows: Rows, name: string, traffic: VersionTraffic[]): ConsoleRemote => {
    const channel = (which: DeployChannel) => {
      const row = rows.channels.find((each) => each.remote_name === name && each.channel === which)
      return row === undefined ? emptyChannel(which) : toState(row)
    }
    const stable = channel('stable')
    const versions = rows.versions.filter((row) => row.remote_name === name)
    const stableRow = versions.find((row) => row.version === stable.version)
    const latest = versions[0]
    return {
      name,
      stable,
      canary: channel('canary'),
      contract: stableRow === undefined ? null : contractOf(stableRow.descriptor),
      bytes: stableRow === undefined ? null : bytesOf(stableRow.descriptor),
      lastPublished:
        latest === undefined
          ? null
          : {
              version: latest.version,
              by: publisherOf(rows, latest) ?? 'unknown',
              at: latest.registered_at.toISOString(),
            },
      traffic,
    }
  }

  /** The versions the channels serve, canary first. */
  const servedVersions = (rows: Rows, name: string): string[] => {
    const served = ['canary', 'stable'].flatMap((which) => {
      const row = rows.channels.find((each) => each.remote_name === name && each.channel === which)
      return row?.version == null ? [] : [row.version]
    })
    return [...new Set(served)]
  }

  return {
    async remotes(claims) {
      const rows = await read(claims, (tx) => registryRows(tx))
      return Promise.all(
        rows.names.map(async (name) =>
          summarize(rows, name, await deps.traffic.figures(name, servedVersions(rows, name))),
        ),
      )
    },

    async remote(claims, name) {
      const found = await read(claims, async (tx) => {
        const rows = await registryRows(tx, name)
        if (rows.names.length === 0) return null
        const stable = rows.channels.find((row) => row.channel === 'stable')?.version ?? null
        return { rows, previousGood: await channelStore.previousGood(tx, name, stable) }
      })
      if (found === null) return null
      const { rows, previousGood } = found
      const traffic = await deps.traffic.figures(name, servedVersions(rows, name))
      const versions = rows.versions.flatMap((row): ConsoleVersion[] => {
        const descriptor = remoteDescriptorSchema.safeParse(row.descriptor)
        if (!descriptor.success) {
          logger.warn('console: a registered descriptor no longer reads', {
            remote: name,
            version: row.version,
          })
          return []
        }
        return [
          {
            version: row.version,
            descriptor: descriptor.data,
            contentSha256: row.content_sha256,
            bytes: descriptor.data.files.reduce((sum, file) => sum + file.bytes, 0),
            registeredAt: row.registered_at.toISOString(),
            registeredBy: publisherOf(rows, row),
            lastStableAt: row.last_stable_at?.toISOString() ?? null,
            withdrawnAt: row.withdrawn_at?.toISOString() ?? null,
            withdrawnReason: row.withdrawn_reason,
            checks: checksOf(row.checks),
          },
        ]
      })
      return { remote: summarize(rows, name, traffic), previousGood, versions }
    },

    async audit(claims, query) {
      const limit = query.limit ?? 100
      const rows = await read(claims, async (tx) => {
        let select = queries
          .selectFrom('remote_deploy_events')
          .select([
            'id',
            'kind',
            'remote_name',
            'version',
            'from_version',
            'percentage',
            'actor',
            'source',
            'details',
            'created_at',
          ])
          .orderBy('id', 'desc')
          .limit(limit + 1)
        if (query.remote !== undefined) select = select.where('remote_name', '=', query.remote)
        if (query.kind !== undefined) select = select.where('kind', '=', query.kind)
        if (query.source !== undefined) select = select.where('source', '=', query.source)
        if (query.before !== undefined) select = select.where('id', '<', query.before)
        if (query.actor !== undefined) {
          // A part of the actor, literally: LIKE's own characters are escaped.
          const literal = query.actor.replace(/[\\%_]/g, (char) => `\\${char}`)
          select = select.where('actor', 'ilike', `%${literal}%`)
        }
        return (await execute(select, tx)).rows
      })
      const page = rows.slice(0, limit)
      return {
        entries: page.map((row) => toAuditEntry(row as AuditRow)),
        nextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
      }
    },

    async tokens(claims) {
      const rows = await read(
        claims,
        async (tx) =>
          (
            await execute(
              queries
                .selectFrom('deploy_tokens')
                .select(['id', 'remote_name', 'label', 'created_at', 'last_used_at', 'revoked_at'])
                .orderBy('created_at', 'desc')
                .orderBy('id'),
              tx,
            )
          ).rows,
      )
      return rows.map((row) => ({
        id: row.id,
        remote: row.remote_name,
        label: row.label,
        createdAt: row.created_at.toISOString(),
        lastUsedAt: row.last_used_at?.toISOString() ?? null,
        revokedAt: row.revoked_at?.toISOString() ?? null,
      }))
    },
  }
}

/** The console's 404 for a remote the registry does not know. */
export function unknownRemote(name: string): ApiError {
  return new ApiError('not_found', {
    message: `The registry has no remote called ${name}. It appears once a version of it is published or a deploy token is issued for it.`,
  })
}
