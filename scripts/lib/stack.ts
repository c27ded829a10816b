import { createServer } from 'node:net'
import path from 'node:path'
import { startBff } from '@tessera/bff/node'
import { stripePrices } from '@tessera/contracts'
import { startCdn } from '@tessera/emulators/cdn/node'
import { startOpenAiEmulator } from '@tessera/emulators/openai/node'
import { openDatabase, prepareDatabase } from '@tessera/db/open-database'
import type { Sql } from '@tessera/db/sql'
import { jsonLogger, startStripeEmulator } from '@tessera/emulators/stripe/node'
import { localMailApiKey } from '@tessera/emulators/supabase/mailbox-send'
import { startSupabaseEmulator } from '@tessera/emulators/supabase/node'
import { ensureLocalTokens } from '../deploy/local-tokens.ts'
import type { TokenIssuer } from '../deploy/local-tokens.ts'
import { discoverRemotes, repoRoot } from './paths.ts'
import { ensureFirstOperator } from './first-operator.ts'
import { startPluginServices } from './plugin-services.ts'
import { publishLocalBuilds } from './publish-local.ts'
import { followRemoteFolders } from './remote-tokens.ts'

export interface StackOptions {
  /** 0 picks a free port. */
  bffPort: number
  cdnPort: number
  supabasePort?: number
  mailboxPort?: number
  stripePort?: number
  openaiPort?: number
  /** How fast the OpenAI stand-in streams its answers. */
  openaiTokensPerSecond?: number
  /** A PostgreSQL server; without it one PGlite in `<dataDir>/pglite` serves everything. */
  databaseUrl?: string
  /** Where the stack keeps its state (cdn files, registry), relative to the repository root. */
  dataDir: string
  /** The built host the BFF serves at `/`. */
  hostDist?: string
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** Extra origins allowed to call the BFF and load remotes (the dev server). */
  extraOrigins?: string[]
  /** Serve remote files with no-cache (dev: builds are rewritten in place). */
  mutableCdn?: boolean
  /** Skip publishing the local builds at start. */
  skipPublish?: boolean
  /** More origins the BFF accepts builds from (a second cdn, say: see `serveRemotesFrom`). */
  storageOrigins?: string[]
  /**
   * Serves the BFF some other way than in this process (the cluster: replicas behind HAProxy,
   * scripts/lib/cluster.ts), with the environment the stack built for it; the result must answer
   * on `bffPort`. Default: `startBff` here, sharing the stack's database.
   */
  serveBff?: (setup: { env: Record<string, string | undefined>; sql: Sql }) => Promise<StackBff>
}

/** What the stack needs of the BFF it serves. */
export interface StackBff {
  port: number
  deployTokens: TokenIssuer
  close(): Promise<void>
}

export interface RunningStack {
  appUrl: string
  cdnUrl: string
  supabaseUrl: string
  mailboxUrl: string
  stripeUrl: string
  openaiUrl: string
  cdnRoot: string
  /** Each remote's deploy token (also in `<dataDir>/deploy-tokens.json`). */
  deployTokens: Record<string, string>
  /** The stack's first operator (also in `<dataDir>/operator.json`) and where to sign in. */
  operator: { email: string; password: string; signInUrl: string }
  /**
   * Registers the local builds as served from another origin holding the same files (its origin
   * must be in `storageOrigins`): hosts then load remotes from there.
   */
  serveRemotesFrom(cdnUrl: string): Promise<void>
  close(): Promise<void>
}

/** A port that was free a moment ago (both servers need each other's origin before they start). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Starts the cdn stand-in and the BFF in this process, with the remotes published locally. */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const bffPort = options.bffPort || (await freePort())
  const cdnPort = options.cdnPort || (await freePort())
  const appUrl = `http://localhost:${bffPort}`
  const dataDir = path.resolve(repoRoot, options.dataDir)
  const cdnRoot = path.join(dataDir, 'cdn')
  const origins = [appUrl, `http://127.0.0.1:${bffPort}`, ...(options.extraOrigins ?? [])]

  const sql = await openDatabase(
    options.databaseUrl ? { url: options.databaseUrl } : { dataDir: path.join(dataDir, 'pglite') },
  )
  const closers: Array<() => Promise<void>> = [() => sql.close()]
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close()
  }
  try {
    // The auth stand-in needs the `auth` schema before it starts; the BFF re-checks (idempotent).
    await prepareDatabase(sql, {
      bootstrap: true,
      migrationsDir: path.join(repoRoot, 'supabase/migrations'),
    })
    const cdn = await startCdn({
      port: cdnPort,
      root: cdnRoot,
      allowedOrigins: origins,
      immutable: !options.mutableCdn,
    })
    closers.push(() => cdn.close())
    const supabase = await startSupabaseEmulator({
      db: sql,
      port: options.supabasePort ?? 0,
      mailboxPort: options.mailboxPort ?? 0,
      siteUrl: appUrl,
    })
    closers.push(() => supabase.close())
    const stripeWebhookSecret = 'whsec_tessera_local_stand_in'
    const stripe = await startStripeEmulator({
      port: options.stripePort ?? 0,
      stateFile: path.join(dataDir, 'stripe/state.json'),
      webhookUrl: `http://127.0.0.1:${bffPort}/api/billing/webhook`,
      webhookSecret: stripeWebhookSecret,
      // The catalogue is the source of truth for prices; the stand-in sells exactly those.
      seed: stripePrices,
      log: jsonLogger(options.logLevel ?? 'info'),
    })
    closers.push(() => stripe.close())
    const openai = await startOpenAiEmulator({
      port: options.openaiPort ?? 0,
      ...(options.openaiTokensPerSecond ? { tokensPerSecond: options.openaiTokensPerSecond } : {}),
    })
    closers.push(() => openai.close())
    // Each remote's own API (remotes/<name>/api) runs beside the stack, mapped for the BFF's proxy.
    const pluginServices = await startPluginServices({
      publicOrigin: appUrl,
      jwksUrl: `http://127.0.0.1:${bffPort}/.well-known/jwks.json`,
      mapped: process.env.PLUGIN_UPSTREAMS,
      freePort,
      log: (line) => {
        if (options.logLevel !== 'silent' && options.logLevel !== 'error')
          console.log(JSON.stringify({ level: 'info', msg: 'plugin api', detail: line }))
      },
    })
    closers.push(() => pluginServices.close())
    // Every BFF setting from the environment applies (README's table); the stack's own wiring wins.
    const bffEnv = {
      ...process.env,
      PORT: String(bffPort),
      PUBLIC_ORIGIN: appUrl,
      ALLOWED_ORIGINS: origins.join(','),
      // Builds are checked where hosts load them: this cdn, and Supabase Storage's stand-in.
      DEPLOY_STORAGE_ORIGINS: [
        new URL(cdn.url).origin,
        new URL(cdn.url.replace('localhost', '127.0.0.1')).origin,
        new URL(supabase.url).origin,
        ...(options.storageOrigins ?? []),
      ].join(','),
      HOST_DIST: path.resolve(repoRoot, options.hostDist ?? 'host/dist'),
      LOG_LEVEL: options.logLevel ?? 'info',
      SUPABASE_URL: supabase.url,
      SUPABASE_ANON_KEY: supabase.anonKey,
      SUPABASE_SERVICE_ROLE_KEY: supabase.serviceRoleKey,
      STRIPE_API_URL: stripe.url,
      STRIPE_SECRET_KEY: 'sk_test_tessera_local',
      STRIPE_WEBHOOK_SECRET: stripeWebhookSecret,
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: 'sk-tessera-local',
      // The BFF's own emails (workspace invites) land in the same mailbox as the auth ones.
      MAIL_API_URL: supabase.mailboxUrl,
      MAIL_API_KEY: localMailApiKey,
      PLUGIN_UPSTREAMS: pluginServices.upstreams,
    }
    const bff = options.serveBff
      ? await options.serveBff({ env: bffEnv, sql })
      : await startBff({ sql, env: bffEnv })
    closers.push(() => bff.close())
    const operator = await ensureFirstOperator({
      dataDir,
      sql,
      supabaseUrl: supabase.url,
      serviceRoleKey: supabase.serviceRoleKey,
    })
    // The stack's own publish goes through the deploy API like any team's (docs/decisions/009).
    const deployTokens = await ensureLocalTokens({
      dataDir,
      remotes: discoverRemotes(),
      issuer: bff.deployTokens,
    })
    const apiUrl = `http://127.0.0.1:${bff.port}`
    const log = (line: string) => {
      if (
        options.logLevel !== 'silent' &&
        options.logLevel !== 'error' &&
        options.logLevel !== 'warn'
      )
        console.log(JSON.stringify({ level: 'info', msg: 'local publish', detail: line }))
    }
    if (!options.skipPublish) {
      await publishLocalBuilds({ apiUrl, cdnRoot, cdnUrl: cdn.url, tokens: deployTokens, log })
    }
    const followed = followRemoteFolders({
      dataDir,
      issuer: bff.deployTokens,
      tokens: deployTokens,
      log,
    })
    closers.push(async () => followed.close())
    return {
      appUrl,
      cdnUrl: cdn.url,
      supabaseUrl: supabase.url,
      mailboxUrl: supabase.mailboxUrl,
      stripeUrl: stripe.url,
      openaiUrl: openai.url,
      cdnRoot,
      deployTokens,
      operator: { ...operator, signInUrl: `${appUrl}/auth/sign-in?next=%2Fconsole` },
      async serveRemotesFrom(cdnUrl) {
        await publishLocalBuilds({ apiUrl, cdnRoot, cdnUrl, tokens: deployTokens, log })
      },
      close: closeAll,
    }
  } catch (error) {
    await closeAll()
    throw error
  }
}
