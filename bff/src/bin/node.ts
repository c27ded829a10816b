import type { Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { serve } from '@hono/node-server'
import type { HttpBindings } from '@hono/node-server'
import { getConnInfo } from '@hono/node-server/conninfo'
import { readMigrationFiles } from '@tessera/db/migrations'
import type { Sql } from '@tessera/db/sql'
import { createApp } from '../http/app.ts'
import { resolveClientAddress } from '../platform/client-address.ts'
import { acceptProxyProtocol } from '../platform/proxy-protocol.ts'
import { systemClock } from '../platform/clock.ts'
import { openBffDatabase, prepareBffDatabase } from '../platform/database.ts'
import { EnvError, loadEnv } from '../platform/env.ts'
import { isMain } from '../platform/is-main.ts'
import { createLogger } from '../platform/logger.ts'
import { createReadiness, NotReadyError } from '../platform/readiness.ts'
import type { Readiness } from '../platform/readiness.ts'
import Stripe from 'stripe'
import { createNodeFetch } from '../platform/node-fetch.ts'
import { loadNodePluginKeys } from '../modules/plugins/key-file.ts'
import { createNodeUpstreamClient } from '../modules/plugins/node-upstream-client.ts'
import type { Logger } from '../platform/logger.ts'
import { createAccessTokenVerifier } from '../modules/identity/access-tokens.ts'
import { createSupabaseAuthGateway } from '../modules/identity/auth-gateway.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'
import type { DeployTokens } from '../modules/deploy/tokens.ts'
import { createEventHub } from '../modules/events/event-hub.ts'
import { createOutboxBus, startEventRelay } from '../modules/events/event-outbox.ts'
import type { EventRelay } from '../modules/events/event-outbox.ts'
import type { EventHub } from '../modules/events/event-hub.ts'
import { createHostDist } from '../http/host-dist.ts'
import { createOriginAllowlist } from '../http/origin-allowlist.ts'
import { publishRegistryChanges } from '../modules/registry/registry-changes.ts'
import { createDbRegistrySource } from '../modules/registry/registry-db-source.ts'
import { createTelemetryStore } from '../modules/registry/telemetry-store.ts'
import type { TelemetryStore } from '../modules/registry/telemetry-store.ts'
import { writeStdoutLine } from '../platform/stdout-lines.ts'

export interface StartBffOptions {
  /** Environment variables; defaults to process.env. Tests pass PORT: '0'. */
  env?: Record<string, string | undefined>
  logger?: Logger
  /** How often the registry is checked for changes made by another process (ms). */
  registryPollMs?: number
  /** How long open connections may take to finish on close before they are cut (ms). */
  closeGraceMs?: number
  /**
   * A database already open in this process (PGlite shared with the Supabase stand-in, say);
   * the BFF prepares it (bootstrap and migrations, as env says) but leaves closing it to the
   * caller. Without it the BFF opens DATABASE_URL, or PGlite in PGLITE_DATA_DIR.
   */
  sql?: Sql
}

export interface RunningBff {
  /** Where the BFF can be reached, with the port it actually got. */
  url: string
  port: number
  hub: EventHub
  telemetry: TelemetryStore
  /** The database the BFF uses (the one given, or the one it opened). */
  sql: Sql
  /** Issues and checks deploy tokens (the local stack makes one per remote at start). */
  deployTokens: DeployTokens
  /** What `GET /api/health/ready` checks; register more checks here. */
  readiness: Readiness
  /** Ends the live event streams, stops watching the registry, closes the server (and the database it opened). */
  close(): Promise<void>
  /**
   * Shutdown behind a load balancer (SIGTERM): readiness fails at once, no new connections are
   * taken, event streams end with a hint to reconnect soon (to another replica), and running
   * requests get up to DRAIN_TIMEOUT_SECONDS to finish before they are cut. Then as close().
   */
  drain(): Promise<void>
}

/** Fails until every migration in the folder this BFF was built with is recorded as applied. */
function migrationsCheck(sql: Sql): () => Promise<void> {
  let expected: Promise<string[]> | null = null
  let current = false
  return async () => {
    // Migrations only go forward: once current, always current for this process.
    if (current) return
    expected ??= readMigrationFiles().then((files) => files.map((file) => file.version))
    const { rows } = await sql.query<{ version: string }>(
      'select version from supabase_migrations.schema_migrations',
    )
    const applied = new Set(rows.map((row) => row.version))
    const missing = (await expected).filter((version) => !applied.has(version))
    if (missing.length > 0)
      throw new NotReadyError(`${missing.length} migrations not applied yet (${missing[0]} first)`)
    current = true
  }
}

const loopbackHosts = new Set(['127.0.0.1', '::1', 'localhost'])
const anyHosts = new Set(['0.0.0.0', '::'])

function urlHost(hostName: string): string {
  if (anyHosts.has(hostName)) return 'localhost'
  return hostName.includes(':') ? `[${hostName}]` : hostName
}

/** How long the server keeps an idle keep-alive connection (see `listen`). */
export const KEEP_ALIVE_MS = 65_000

function listen(
  fetch: Parameters<typeof serve>[0]['fetch'],
  hostname: string,
  port: number,
  prepare: (server: Server) => void,
) {
  return new Promise<Server>((resolve, reject) => {
    const server = serve({ fetch, hostname, port }) as Server
    // An idle keep-alive connection stays open longer than the load balancer's (HAProxy's 60 s
    // `timeout server`, deploy/haproxy.cfg) and any client's reuse of it: closed after Node's
    // default 5 s, a request sent on it just then is reset. A drain closes idle ones at once.
    server.keepAliveTimeout = KEEP_ALIVE_MS
    server.headersTimeout = KEEP_ALIVE_MS + 1000
    // Still synchronous with listen(): no connection has arrived yet.
    prepare(server)
    server.once('error', reject)
    server.once('listening', () => {
      server.off('error', reject)
      resolve(server)
    })
  })
}

/** Starts the BFF on Node: the Web-standard app plus files, the registry watch and a server. */
export async function startBff(options: StartBffOptions = {}): Promise<RunningBff> {
  const env = loadEnv(options.env ?? process.env)
  // Before anything opens: a bad key fails start-up as a bad setting does.
  const pluginKeys = await loadNodePluginKeys(env)
  const logger = options.logger ?? createLogger({ level: env.LOG_LEVEL, write: writeStdoutLine })
  const clock = systemClock
  const hub = createEventHub({
    onListenerError: (error, event) => logger.error('live event listener failed', { error, event }),
  })
  const origins = createOriginAllowlist(env.ALLOWED_ORIGINS)
  const telemetry = createTelemetryStore()
  const ownsSql = options.sql === undefined
  const { sql, applied } =
    options.sql === undefined
      ? await openBffDatabase(env)
      : { sql: options.sql, applied: await prepareBffDatabase(options.sql, env) }
  logger.info('database ready', {
    database: sql.kind,
    migrationsApplied: applied.map((migration) => `${migration.version}_${migration.name}`),
  })
  const readiness = createReadiness()
  readiness.register('migrations', migrationsCheck(sql))
  // Live events through PostgreSQL (docs/decisions/018): this replica's relay from the outbox.
  let relay: EventRelay
  try {
    relay = await startEventRelay({
      sql,
      hub,
      logger,
      retentionMs: env.LIVE_EVENTS_RETENTION_SECONDS * 1000,
    })
  } catch (error) {
    if (ownsSql) await sql.close()
    throw error
  }
  readiness.register('live events', async () => {
    if (!relay.listening()) throw new NotReadyError('the live-event listener is reconnecting')
  })
  const registry = createDbRegistrySource({
    sql,
    pollMs: options.registryPollMs,
    onError: (error) => logger.error('registry poll failed', { error }),
  })
  // With PROXY_PROTOCOL, the client address each connection's header named (see listen below).
  let proxiedSource: (socket: Socket) => string | undefined = () => undefined
  const background = new AbortController()
  const app = createApp({
    background: {
      signal: background.signal,
      sweepEveryMs: env.ASSISTANT_HOLD_SWEEP_SECONDS * 1000,
    },
    readiness,
    env,
    logger,
    registry,
    hub,
    outbox: { bus: createOutboxBus(sql), log: relay },
    clock,
    origins,
    telemetry,
    assets: createHostDist(env.HOST_DIST),
    clientKey: (c) =>
      resolveClientAddress({
        peer:
          proxiedSource((c.env as HttpBindings).incoming.socket) ?? getConnInfo(c).remote.address,
        forwardedFor: c.req.header('x-forwarded-for'),
        trustedProxies: env.TRUSTED_PROXIES,
      }),
    serviceFetch: createNodeFetch(),
    webhookCrypto: Stripe.createNodeCryptoProvider(),
    pluginClient: createNodeUpstreamClient(),
    pluginKeys,
    db: sql,
    authGateway: createSupabaseAuthGateway({
      url: env.SUPABASE_URL,
      anonKey: env.SUPABASE_ANON_KEY,
    }),
    accessTokens: createAccessTokenVerifier({
      jwksUrl: env.SUPABASE_JWKS_URL,
      issuer: env.SUPABASE_JWT_ISSUER,
      apiKey: env.SUPABASE_ANON_KEY,
      clock,
    }),
  })
  let stopWatching: () => void
  try {
    stopWatching = await publishRegistryChanges({ registry, hub, logger, clock })
  } catch (error) {
    background.abort()
    await relay.close()
    if (ownsSql) await sql.close()
    throw error
  }

  let server: Server
  try {
    server = await listen(app.fetch, env.HOST_NAME, env.PORT, (created) => {
      if (!env.PROXY_PROTOCOL) return
      proxiedSource = acceptProxyProtocol(created, {
        onInvalid: (reason) => logger.warn('connection refused', { reason }),
      })
    })
  } catch (error) {
    background.abort()
    stopWatching()
    await relay.close()
    if (ownsSql) await sql.close()
    throw error
  }
  const { port } = server.address() as AddressInfo
  const url = `http://${urlHost(env.HOST_NAME)}:${port}`
  // The BFF's own origin is always allowed: with PORT=0 nobody could have listed it beforehand.
  origins.add(url)
  if (loopbackHosts.has(env.HOST_NAME) || anyHosts.has(env.HOST_NAME)) {
    origins.add(`http://localhost:${port}`)
    origins.add(`http://127.0.0.1:${port}`)
  }
  logger.info('bff listening', { url, publicOrigin: env.PUBLIC_ORIGIN })

  let closing: Promise<void> | null = null
  const shutDown = (graceMs: number): Promise<void> => {
    closing ??= new Promise<void>((resolve, reject) => {
      // First, so the load balancer's next check already takes this process out.
      readiness.drain()
      background.abort()
      stopWatching()
      // Ending the hub ends every SSE stream, so their connections can finish.
      hub.close()
      // Keep-alive sockets become idle as their last response (an SSE stream, say) ends: close
      // them as they do, and cut whatever is still open after the grace period.
      const sweep = setInterval(() => server.closeIdleConnections(), 25)
      const cut = setTimeout(() => {
        logger.warn('cutting connections still open at shutdown', { url, graceMs })
        server.closeAllConnections()
      }, graceMs)
      sweep.unref()
      cut.unref()
      server.close((error) => {
        clearInterval(sweep)
        clearTimeout(cut)
        // The server has stopped taking requests: the database can go.
        const closed = relay.close().then(() => (ownsSql ? sql.close() : undefined))
        closed.then(
          () => {
            if (error) {
              reject(error)
            } else {
              logger.info('bff closed', { url })
              resolve()
            }
          },
          (closeError: unknown) => reject(error ?? closeError),
        )
      })
      server.closeIdleConnections()
    })
    return closing
  }
  const close = () => shutDown(options.closeGraceMs ?? 3000)
  const drain = () => {
    logger.info('bff draining', { url, timeoutSeconds: env.DRAIN_TIMEOUT_SECONDS })
    return shutDown(env.DRAIN_TIMEOUT_SECONDS * 1000)
  }
  return {
    url,
    port,
    hub,
    telemetry,
    sql,
    deployTokens: createDeployTokens({
      sql,
      clock,
      actor: { source: 'cli', userId: null, label: 'local stack' },
    }),
    readiness,
    close,
    drain,
  }
}

async function main(): Promise<void> {
  let bff: RunningBff
  try {
    bff = await startBff()
  } catch (error) {
    const fields =
      error instanceof EnvError
        ? { msg: 'invalid environment', keys: error.keys, message: error.message }
        : { msg: 'bff failed to start', message: String(error) }
    process.stderr.write(`${JSON.stringify({ level: 'error', ...fields })}\n`)
    process.exitCode = 1
    return
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // Behind a load balancer a stop is a drain: running answers finish, streams move elsewhere.
      bff.drain().then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(
            `${JSON.stringify({ level: 'error', msg: 'bff close failed', message: String(error) })}\n`,
          )
          process.exit(1)
        },
      )
    })
  }
}

if (isMain(import.meta.url)) {
  await main()
}
