import { remoteNameSchema } from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import type { Clock } from '../../platform/clock.ts'
import { execute, queries } from '../../platform/db/query.ts'
import { sha256Hex } from './hash.ts'
import { auditFieldsOf, cliActor } from './actor.ts'
import type { AuditActor } from './actor.ts'

/** Who is deploying: one token, scoped to one remote. */
export interface Deployer {
  tokenId: string
  remote: string
  label: string
}

export interface DeployTokens {
  /**
   * A new token for `remote` (the remote is created if new); the only time the token is seen.
   * Audited as `token_issued` by `by` (a command run on the server when not given).
   */
  issue(remote: string, label: string, by?: AuditActor): Promise<{ id: string; token: string }>
  /** The deployer a token stands for; null when it is unknown or revoked. */
  authenticate(token: string): Promise<Deployer | null>
  /**
   * Revokes a token at once; later requests with it are refused. False when no live token has
   * that id. Audited as `token_revoked`.
   */
  revoke(id: string, by?: AuditActor): Promise<boolean>
  /** Every token (never the token itself), newest first; with `remote`, that remote's. */
  list(remote?: string): Promise<DeployTokenInfo[]>
}

/** What is known of a token: everything but the token. */
export interface DeployTokenInfo {
  id: string
  remote: string
  label: string
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

/** Shape of every token: a recognisable prefix (secret scanners, logs), the remote, 256 random bits. */
const tokenShape = /^tdt_[a-z][a-z0-9-]{1,31}_[A-Za-z0-9_-]{43}$/

function randomPart(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '')
}

/** Makes sure the remote exists with both of its channels (empty until a promote). */
export async function ensureRemote(sql: SqlQueryable, remote: string): Promise<void> {
  await execute(
    queries
      .insertInto('remotes')
      .values({ name: remote })
      .onConflict((oc) => oc.doNothing()),
    sql,
  )
  await execute(
    queries
      .insertInto('remote_channels')
      .values([
        { remote_name: remote, channel: 'stable', version: null, percentage: null },
        { remote_name: remote, channel: 'canary', version: null, percentage: null },
      ])
      .onConflict((oc) => oc.doNothing()),
    sql,
  )
}

/**
 * Deploy tokens, stored as sha256 hashes: the database never holds one that could be used. Each
 * use stamps `last_used_at`, so an unused token is easy to find and revoke.
 */
export function createDeployTokens(deps: {
  sql: Sql
  clock: Clock
  /** Who issues and revokes when a call names nobody (the local stack, a command). */
  actor?: AuditActor
}): DeployTokens {
  const { sql, clock } = deps
  const unknownCli = deps.actor ?? cliActor(undefined)
  const logTokenEvent = async (
    tx: SqlQueryable,
    kind: 'token_issued' | 'token_revoked',
    remote: string,
    by: AuditActor,
    details: { tokenId: string; label: string },
  ) => {
    const who = auditFieldsOf(by)
    await execute(
      queries.insertInto('remote_deploy_events').values({
        remote_name: remote,
        kind,
        version: null,
        actor: who.actor,
        source: who.source,
        token_id: who.tokenId,
        operator_id: who.operatorId,
        from_version: null,
        percentage: null,
        details: JSON.stringify(details),
        created_at: new Date(clock.now()),
      }),
      tx,
    )
  }
  return {
    async issue(remote, label, by = unknownCli) {
      remoteNameSchema.parse(remote)
      const token = `tdt_${remote}_${randomPart()}`
      const id = await sql.transaction(async (tx) => {
        await ensureRemote(tx, remote)
        const { rows } = await execute(
          queries
            .insertInto('deploy_tokens')
            .values({
              remote_name: remote,
              token_hash: await sha256Hex(token),
              label,
              created_at: new Date(clock.now()),
            })
            .returning('id'),
          tx,
        )
        const row = rows[0]
        if (row === undefined) throw new Error('the deploy token was not stored')
        await logTokenEvent(tx, 'token_issued', remote, by, { tokenId: row.id, label })
        return row.id
      })
      return { id, token }
    },
    async authenticate(token) {
      if (!tokenShape.test(token)) return null
      const { rows } = await execute(
        queries
          .updateTable('deploy_tokens')
          .set({ last_used_at: new Date(clock.now()) })
          .where('token_hash', '=', await sha256Hex(token))
          .where('revoked_at', 'is', null)
          .returning(['id', 'remote_name', 'label']),
        sql,
      )
      const row = rows[0]
      return row === undefined
        ? null
        : { tokenId: row.id, remote: row.remote_name, label: row.label }
    },
    async revoke(id, by = unknownCli) {
      return sql.transaction(async (tx) => {
        const { rows } = await execute(
          queries
            .updateTable('deploy_tokens')
            .set({ revoked_at: new Date(clock.now()) })
            .where('id', '=', id)
            .where('revoked_at', 'is', null)
            .returning(['remote_name', 'label']),
          tx,
        )
        const row = rows[0]
        if (row === undefined) return false
        await logTokenEvent(tx, 'token_revoked', row.remote_name, by, {
          tokenId: id,
          label: row.label,
        })
        return true
      })
    },
    async list(remote) {
      let query = queries
        .selectFrom('deploy_tokens')
        .select(['id', 'remote_name', 'label', 'created_at', 'last_used_at', 'revoked_at'])
        .orderBy('created_at', 'desc')
        .orderBy('id')
      if (remote !== undefined) query = query.where('remote_name', '=', remote)
      const { rows } = await execute(query, sql)
      return rows.map((row) => ({
        id: row.id,
        remote: row.remote_name,
        label: row.label,
        createdAt: row.created_at,
        lastUsedAt: row.last_used_at,
        revokedAt: row.revoked_at,
      }))
    },
  }
}
