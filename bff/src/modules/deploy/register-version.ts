/**
 * Registering an uploaded build: checked against the host, fetched and verified byte for byte
 * where hosts will load it, then recorded once (versions are immutable; a re-upload of the same
 * content elsewhere is a relocation).
 */
import {
  ApiError,
  compatibilityProblems,
  descriptorDigest,
  type PublishCheck,
  type RegisterVersionBody,
  type RegisterVersionResponse,
  type RemoteDescriptor,
} from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { execute, queries } from '../../platform/db/query.ts'
import type { Logger } from '../../platform/logger.ts'
import type { ChannelStore, HostCompatibility } from './channel-store.ts'
import { ensureRemote } from './tokens.ts'
import type { Deployer } from './tokens.ts'
import type { BuildVerifier } from './verify-build.ts'

function shortSha(sha: string): string {
  return sha.slice(0, 12)
}

/**
 * The checks a build passed to be registered, in words, kept with the version (the console shows
 * them). Every one passed: a build that fails one is refused before anything is written.
 */
export function publishChecksOf(
  descriptor: RemoteDescriptor,
  baseUrl: string,
  host: HostCompatibility,
): PublishCheck[] {
  const bytes = descriptor.files.reduce((sum, file) => sum + file.bytes, 0)
  const shared = Object.entries(descriptor.shared)
    .map(([name, version]) => `${name} ${version}`)
    .join(', ')
  return [
    {
      name: 'contract',
      passed: true,
      detail: `contract ${descriptor.contract}; the host runs contract ${host.contract}`,
    },
    { name: 'shared dependencies', passed: true, detail: shared === '' ? 'none' : shared },
    ...(descriptor.api === undefined
      ? []
      : [{ name: 'plugin API mapped', passed: true, detail: descriptor.api.path }]),
    { name: 'storage location', passed: true, detail: baseUrl },
    {
      name: 'files match their sha256',
      passed: true,
      detail: `${descriptor.files.length} files, ${bytes} bytes, each fetched and hashed`,
    },
  ]
}

export function createVersionRegistration(deps: {
  sql: Sql
  logger: Logger
  verifier: BuildVerifier
  host: HostCompatibility
  store: ChannelStore
  onChange: () => void
  /** Whether the operator mapped an upstream for this plugin's API (`PLUGIN_UPSTREAMS`). */
  hasPluginUpstream?: (name: string) => boolean
}) {
  const { sql, logger, store } = deps
  const { now, findVersion, logEvent } = store

  async function registerVersion(
    deployer: Deployer,
    body: RegisterVersionBody,
  ): Promise<{ status: 200 | 201; result: RegisterVersionResponse }> {
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
    // A declared API nobody can reach would fail every call in the page: refused until mapped.
    if (descriptor.api !== undefined && deps.hasPluginUpstream?.(remote) !== true) {
      throw new ApiError('plugin_api_unmapped', {
        message: `${remote} ${version} declares an API at ${descriptor.api.path}, but this platform has no upstream for ${remote}. The operator must add ${remote}=<origin of its service> to PLUGIN_UPSTREAMS (for example PLUGIN_UPSTREAMS=${remote}=http://127.0.0.1:9101) and restart the BFF; then publish again.`,
        details: { plugin: remote, setting: 'PLUGIN_UPSTREAMS' },
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
            published_by: deployer.label,
            checks: JSON.stringify(publishChecksOf(descriptor, baseUrl, deps.host)),
          }),
          tx,
        )
        await logEvent(tx, {
          remote,
          kind: 'published',
          version,
          by: deployer,
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
        by: deployer,
        details: { from: current.base_url, to: baseUrl },
      })
      return 'relocated' as const
    })
    if (outcome !== 'unchanged') deps.onChange()
    logger.info('remote version registered', { remote, version, outcome, by: deployer.label })
    return { status: outcome === 'registered' ? 201 : 200, result: result(outcome) }
  }

  return registerVersion
}
