/**
 * `npm run billing:reconcile [-- --dry-run] [--direct] [--url <bff origin>]`: re-syncs every
 * subscription from Stripe, prints the drift found and what was fixed (docs/decisions/007).
 *
 * - By default it asks the running BFF (`http://127.0.0.1:$PORT`, or `--url`) with a request
 *   signed by a key derived from STRIPE_WEBHOOK_SECRET: the BFF owns the database (PGlite
 *   cannot be opened twice) and tells open tabs about repaired plans at once.
 * - When nothing answers there (or with `--direct`) it opens the database itself, DATABASE_URL
 *   or PGLITE_DATA_DIR (the stack must be stopped then), and Stripe at STRIPE_API_URL. A local
 *   stand-in must be running (the command talks to Stripe over HTTP, never starts a stand-in).
 */
import { existsSync } from 'node:fs'
import { reconcileReportSchema } from '@tessera/contracts'
import type { ReconcileReport } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type Stripe from 'stripe'
import { z } from 'zod/mini'
import { openBffDatabase } from '../platform/database.ts'
import { loadEnv } from '../platform/env.ts'
import type { Env } from '../platform/env.ts'
import { isMain } from '../platform/is-main.ts'
import { BILLING_RECONCILE_PATH } from '../modules/billing/billing-routes.ts'
import { ADMIN_SIGNATURE_HEADER, signAdminRequest } from '../modules/billing/admin-signature.ts'
import { reconcileBilling } from '../modules/billing/reconcile.ts'
import { createStripeClients } from '../modules/billing/stripe-client.ts'

export interface DirectTarget {
  sql: Sql
  stripe: Stripe
  /** Where the data came from, for the printout. */
  description: string
  close(): Promise<void>
}

export interface ReconcileCommandDeps {
  env: Record<string, string | undefined>
  write: (line: string) => void
  /** How the running BFF is reached. */
  fetch?: typeof fetch
  /** Opens the database and Stripe for `--direct` (tests pass theirs). */
  openDirect?: (env: Env) => Promise<DirectTarget>
}

const argsSchema = z.object({
  dryRun: z.boolean(),
  direct: z.boolean(),
  url: z.optional(z.url({ protocol: /^https?$/ })),
})

function parseArgs(argv: readonly string[]): z.infer<typeof argsSchema> {
  const known = new Set(['--dry-run', '--direct', '--url'])
  let url: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    const [name = '', inline] = arg.split('=', 2)
    if (!known.has(name))
      throw new Error(`Unknown option ${arg}. Use --dry-run, --direct, --url <origin>.`)
    if (name === '--url') url = inline ?? argv[(i += 1)]
  }
  return argsSchema.parse({
    dryRun: argv.includes('--dry-run'),
    direct: argv.includes('--direct'),
    ...(url === undefined ? {} : { url }),
  })
}

/** The BFF refused the connection: nothing is listening there. */
function isNotListening(error: unknown): boolean {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined
  return cause?.code === 'ECONNREFUSED'
}

async function throughBff(
  origin: string,
  env: Env,
  dryRun: boolean,
  fetchFn: typeof fetch,
): Promise<ReconcileReport> {
  const body = JSON.stringify({ dryRun })
  const signature = await signAdminRequest(
    env.STRIPE_WEBHOOK_SECRET,
    body,
    Math.floor(Date.now() / 1000),
  )
  const response = await fetchFn(`${origin}${BILLING_RECONCILE_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [ADMIN_SIGNATURE_HEADER]: signature },
    body,
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`The BFF at ${origin} answered ${response.status}: ${text}`)
  return reconcileReportSchema.parse(JSON.parse(text))
}

async function stripeAnswers(apiUrl: string): Promise<boolean> {
  try {
    await fetch(apiUrl, { signal: AbortSignal.timeout(3000) })
    return true
  } catch (error) {
    if (isNotListening(error)) return false
    throw error
  }
}

/**
 * Stripe as the BFF reaches it, over HTTP: the real API or the local stand-in. A local stand-in
 * that does not answer is not started here (the command never runs a stand-in itself).
 */
async function openStripe(
  env: Env,
): Promise<{ stripe: Stripe; description: string; close(): void }> {
  const local = /^http:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(env.STRIPE_API_URL)
  if (local && !(await stripeAnswers(env.STRIPE_API_URL))) {
    throw new Error(
      `Stripe at ${env.STRIPE_API_URL} does not answer: start the stack (npm start), or the Stripe stand-in alone (npx tsx emulators/src/stripe/node.ts), and run the command again.`,
    )
  }
  const { background } = createStripeClients({
    apiUrl: env.STRIPE_API_URL,
    secretKey: env.STRIPE_SECRET_KEY,
  })
  return { stripe: background, description: `Stripe at ${env.STRIPE_API_URL}`, close: () => {} }
}

/** The database and Stripe as the BFF would open them. */
export async function openDirect(env: Env): Promise<DirectTarget> {
  if (env.DATABASE_URL === undefined && !existsSync(env.PGLITE_DATA_DIR)) {
    throw new Error(`There is no database at ${env.PGLITE_DATA_DIR} (PGLITE_DATA_DIR).`)
  }
  const stripe = await openStripe(env)
  const { sql } = await openBffDatabase(env).catch((error: unknown) => {
    stripe.close()
    throw error
  })
  const database = env.DATABASE_URL === undefined ? env.PGLITE_DATA_DIR : 'DATABASE_URL'
  return {
    sql,
    stripe: stripe.stripe,
    description: `${database}, ${stripe.description}`,
    close: async () => {
      stripe.close()
      await sql.close()
    },
  }
}

/** The report as lines for people. */
export function formatReport(report: ReconcileReport, where: string): string[] {
  const lines = [
    `billing reconcile${report.dryRun ? ' (dry run: nothing changed)' : ''} — ${where}`,
    `  Stripe: ${report.customersAtStripe} customers, ${report.subscriptionsAtStripe} subscriptions; ${report.rowsChecked} stored subscription rows checked`,
  ]
  if (report.drift.length === 0) {
    lines.push('  no drift: every stored row matches Stripe')
    return lines
  }
  lines.push(`  drift found: ${report.drift.length}`)
  for (const item of report.drift) {
    const what = item.subscriptionId ?? item.customerId
    const who = [
      item.subscriptionId === undefined ? null : `customer ${item.customerId}`,
      item.userId === undefined ? null : `user ${item.userId}`,
    ]
      .filter((part) => part !== null)
      .join(', ')
    const status = report.dryRun ? 'not fixed (dry run)' : item.fixed ? 'fixed' : 'NOT fixed'
    lines.push(`  - ${item.kind} ${what}${who === '' ? '' : ` (${who})`}: ${status}`)
    for (const field of item.fields ?? [])
      lines.push(
        `      ${field.field}: stored ${field.stored ?? '—'} → Stripe ${field.stripe ?? '—'}`,
      )
    if (item.seats !== undefined)
      lines.push(
        `      seats: ${item.seats.quantity} for ${item.seats.members} members in workspace ${item.workspaceId ?? '—'} → ${item.seats.target}`,
      )
    if (item.error !== undefined) lines.push(`      error: ${item.error}`)
  }
  lines.push(`  fixed: ${report.fixed} of ${report.drift.length}`)
  return lines
}

/** Runs the command; returns the exit code. */
export async function runReconcileCommand(
  argv: readonly string[],
  deps: ReconcileCommandDeps,
): Promise<number> {
  const args = parseArgs(argv)
  const env = loadEnv(deps.env)
  if (!args.direct) {
    const origin = (args.url ?? `http://127.0.0.1:${env.PORT}`).replace(/\/+$/, '')
    try {
      const report = await throughBff(origin, env, args.dryRun, deps.fetch ?? fetch)
      for (const line of formatReport(report, `through the running BFF at ${origin}`))
        deps.write(line)
      return 0
    } catch (error) {
      // Nothing listening where the BFF would be: it is not running, so go to the data directly.
      if (args.url !== undefined || !isNotListening(error)) throw error
      deps.write(`No BFF answers at ${origin}; opening the database and Stripe directly.`)
    }
  }
  const target = await (deps.openDirect ?? openDirect)(env)
  try {
    const { report } = await reconcileBilling(
      { sql: target.sql, stripe: target.stripe },
      { dryRun: args.dryRun },
    )
    for (const line of formatReport(report, `directly on ${target.description}`)) deps.write(line)
    return 0
  } finally {
    await target.close()
  }
}

if (isMain(import.meta.url)) {
  try {
    process.exitCode = await runReconcileCommand(process.argv.slice(2), {
      env: process.env,
      write: (line) => console.log(line),
    })
  } catch (error) {
    console.error(
      `billing reconcile failed: ${error instanceof Error ? error.message : String(error)}`,
    )
    process.exitCode = 1
  }
}
