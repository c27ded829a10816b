/**
 * The Supabase stand-in on Node: the API (GoTrue under `/auth/v1`, Storage under `/storage/v1`) on
 * one port, the mailbox on another. `npm start` calls `startSupabaseEmulator({ db })` with the
 * process's one database; run directly (`tsx emulators/src/supabase/node.ts`) it opens its own
 * (PGlite or `DATABASE_URL`).
 */
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { serve } from '@hono/node-server'
import type { Hono } from 'hono'
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import type { Sql } from '@tessera/db/sql'
import type { SupabaseEmulator, SupabaseEmulatorOptions } from './app.ts'
import { createSupabaseEmulator } from './app.ts'
import { readSupabaseEmulatorEnv } from './env.ts'

export interface StartSupabaseEmulatorOptions extends Omit<
  SupabaseEmulatorOptions,
  'jwtIssuer' | 'siteUrl'
> {
  /** API port (54321 like the Supabase CLI); 0 picks a free one. */
  port?: number
  /** Mailbox port (54324 like the CLI's Inbucket); 0 picks a free one. */
  mailboxPort?: number
  host?: string
  /** The app's URL for email links and redirects. */
  siteUrl?: string
  /** `iss` of access tokens; defaults to `<url>/auth/v1`. */
  jwtIssuer?: string
  /** The URL clients use, when it differs from `http://<host>:<port>`. */
  publicUrl?: string
}

export interface RunningSupabaseEmulator {
  /** The project URL for `createClient(url, key)`. */
  url: string
  mailboxUrl: string
  anonKey: string
  serviceRoleKey: string
  /** `${url}/auth/v1/.well-known/jwks.json`, for verifying access tokens. */
  jwksUrl: string
  /** `${url}/storage/v1`; public objects are at `${storageUrl}/object/public/<bucket>/<path>`. */
  storageUrl: string
  emulator: SupabaseEmulator
  close(): Promise<void>
}

interface Listening {
  server: Server
  url: string
}

function listen(
  host: string,
  port: number,
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port, hostname: host }, (info: AddressInfo) => {
      server.off('error', reject)
      const hostForUrl = info.family === 'IPv6' ? `[${info.address}]` : info.address
      resolve({ server: server as Server, url: `http://${hostForUrl}:${info.port}` })
    })
    server.once('error', reject)
  })
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()))
    server.closeAllConnections()
  })
}

/** Starts the API and the mailbox; resolves once both listen. */
export async function startSupabaseEmulator(
  options: StartSupabaseEmulatorOptions,
): Promise<RunningSupabaseEmulator> {
  const {
    port = 54_321,
    mailboxPort = 54_324,
    host = '127.0.0.1',
    publicUrl,
    siteUrl,
    jwtIssuer,
    ...rest
  } = options
  // The issuer names the port, which is only known once listening: route requests to the apps
  // once they exist.
  let apps: { app: Hono; mailboxApp: Hono } | undefined
  const notReady = () => new Response('Starting', { status: 503, headers: { 'retry-after': '1' } })
  const api = await listen(host, port, (request) => apps?.app.fetch(request) ?? notReady())
  let mailbox: Listening
  try {
    mailbox = await listen(
      host,
      mailboxPort,
      (request) => apps?.mailboxApp.fetch(request) ?? notReady(),
    )
  } catch (error) {
    await closeServer(api.server)
    throw error
  }
  const url = (publicUrl ?? api.url).replace(/\/+$/, '')
  try {
    const emulator = await createSupabaseEmulator({
      ...rest,
      siteUrl: siteUrl ?? 'http://localhost:8787',
      jwtIssuer: jwtIssuer ?? `${url}/auth/v1`,
    })
    apps = emulator
    return {
      url,
      mailboxUrl: mailbox.url,
      anonKey: emulator.config.apiKeys.anon,
      serviceRoleKey: emulator.config.apiKeys.serviceRole,
      jwksUrl: `${url}/auth/v1/.well-known/jwks.json`,
      storageUrl: `${url}/storage/v1`,
      emulator,
      close: async () => {
        await Promise.all([closeServer(api.server), closeServer(mailbox.server)])
      },
    }
  } catch (error) {
    await Promise.all([closeServer(api.server), closeServer(mailbox.server)])
    throw error
  }
}

async function main(): Promise<void> {
  const env = readSupabaseEmulatorEnv()
  const log = (level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}) => {
    if (
      env.LOG_LEVEL === 'silent' ||
      (level === 'info' && (env.LOG_LEVEL === 'warn' || env.LOG_LEVEL === 'error'))
    )
      return
    process.stdout.write(`${JSON.stringify({ level, msg, ...fields })}\n`)
  }
  const db: Sql = await openDatabase({
    ...(env.DATABASE_URL === undefined ? {} : { url: env.DATABASE_URL }),
    ...(env.PGLITE_DATA_DIR === undefined ? {} : { dataDir: env.PGLITE_DATA_DIR }),
  })
  // The local bootstrap stands in for what hosted Supabase provides; a server given by URL is
  // assumed to be a plain Postgres that needs it too (never point this at a hosted project).
  const applied = await prepareDatabase(db, { bootstrap: true })
  const running = await startSupabaseEmulator({
    db,
    port: env.SUPABASE_EMULATOR_PORT,
    mailboxPort: env.SUPABASE_EMULATOR_MAILBOX_PORT,
    host: env.SUPABASE_EMULATOR_HOST,
    ...(env.SUPABASE_EMULATOR_PUBLIC_URL === undefined
      ? {}
      : { publicUrl: env.SUPABASE_EMULATOR_PUBLIC_URL }),
    siteUrl: env.SUPABASE_EMULATOR_SITE_URL,
    additionalRedirectUrls: env.SUPABASE_EMULATOR_REDIRECT_URLS,
    apiKeys: {
      anon: env.SUPABASE_EMULATOR_ANON_KEY,
      serviceRole: env.SUPABASE_EMULATOR_SERVICE_ROLE_KEY,
    },
    jwtExpirySeconds: env.SUPABASE_EMULATOR_JWT_EXPIRY,
    mailerAutoconfirm: env.SUPABASE_EMULATOR_AUTOCONFIRM,
    emailRateLimitSeconds: env.SUPABASE_EMULATOR_EMAIL_RATE_LIMIT_SECONDS,
    emailLinkTemplate: env.SUPABASE_EMULATOR_EMAIL_LINK_TEMPLATE,
    onUnexpectedError: (error) =>
      log('error', 'supabase stand-in request failed', { error: String(error) }),
  })
  log('info', 'supabase stand-in ready', {
    url: running.url,
    mailboxUrl: running.mailboxUrl,
    database: db.kind,
    migrationsApplied: applied.map((migration) => `${migration.version}_${migration.name}`),
  })
  const stop = () => {
    Promise.all([running.close(), db.close()]).then(
      () => process.exit(0),
      (error: unknown) => {
        log('error', 'supabase stand-in failed to close', { error: String(error) })
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${JSON.stringify({ level: 'error', msg: 'supabase stand-in failed to start', error: String(error) })}\n`,
    )
    process.exit(1)
  })
}
