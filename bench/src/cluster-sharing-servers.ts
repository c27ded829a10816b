/**
 * The servers of the cluster bench's "cost of sharing" (cluster-sharing.ts), in a process of their
 * own so the load generator never shares their event loop: on the cluster's PostgreSQL, two BFFs
 * that differ only in `SHARED_LIMITS` (the limits counted in PostgreSQL, docs/decisions/019, or in
 * the process), and a bare Hono route answering `/api/me`'s JSON, the reference of the `api-me`
 * bench. Started with the database URL, the OpenAI stand-in's URL and the answers' length; sends
 * `{ ready: SharingTargets }` over the IPC channel, logs (the BFFs' access log at `info`, as
 * deployed) on stdout, and closes when the channel does.
 */
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { startBff } from '@tessera/bff/node'
import { openDatabase } from '@tessera/db/open-database'
import { startSupabaseEmulator } from '@tessera/emulators/supabase/node'
import { signInBenchAccount } from './bench-account.ts'

export interface SharingTargets {
  /** The BFF whose limits are shared through PostgreSQL (the default). */
  sharedUrl: string
  /** The BFF with `SHARED_LIMITS=false`: every limit counted in its own memory. */
  localUrl: string
  /** A bare Hono route returning the same JSON as `/api/me`. */
  bareUrl: string
  /** A signed-in session, good on both BFFs (sessions live in the database). */
  cookie: string
}

// The database, the stand-in, and how long the first-token sends' answers are (short: their
// first token is what is measured).
const [databaseUrl, openaiUrl, answerTokens] = process.argv.slice(2)
const sql = await openDatabase({ url: databaseUrl! })
const supabase = await startSupabaseEmulator({
  db: sql,
  port: 0,
  mailboxPort: 0,
  siteUrl: 'http://localhost',
})
const env = {
  PORT: '0',
  LOG_LEVEL: 'info',
  PUBLIC_ORIGIN: 'http://localhost',
  SUPABASE_URL: supabase.url,
  SUPABASE_ANON_KEY: supabase.anonKey,
  SUPABASE_SERVICE_ROLE_KEY: supabase.serviceRoleKey,
  OPENAI_BASE_URL: `${openaiUrl}/v1`,
  OPENAI_API_KEY: 'sk-tessera-local',
  // The check is made on every send either way; the limit is not what is measured.
  ASSISTANT_RATE_LIMIT: '1000000',
  ASSISTANT_MAX_ANSWER_TOKENS: answerTokens!,
  EMAIL_SEND_RATE_LIMIT: '1000',
}
const shared = await startBff({ sql, env: { ...env, SHARED_LIMITS: 'true' } })
const local = await startBff({ sql, env: { ...env, SHARED_LIMITS: 'false' } })
const account = await signInBenchAccount({ appUrl: shared.url, mailboxUrl: supabase.mailboxUrl })
if (account === null) throw new Error('the BFF offers no sign-up')
const cookie = `${account.name}=${account.value}`
const me = await fetch(`${shared.url}/api/me`, { headers: { cookie } })
const body = (await me.json()) as { user: unknown }
if (!me.ok || body.user === null)
  throw new Error(`the bench account is not signed in: ${me.status}`)
const bare = new Hono().get('/api/me', (c) => c.json(body))
const server = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' })
await new Promise((resolve) => server.once('listening', resolve))
const targets: SharingTargets = {
  sharedUrl: shared.url,
  localUrl: local.url,
  bareUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  cookie,
}
process.send?.({ ready: targets })
process.once('disconnect', () => {
  void (async () => {
    server.close()
    await shared.close()
    await local.close()
    await supabase.close()
    await sql.close()
    process.exit(0)
  })()
})
