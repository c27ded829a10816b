// Test support for billing: the BFF in-process (real PGlite, the Auth stand-in, signed-in
// users) wired to the Stripe stand-in in-process, both ways: the BFF's `stripe` SDK calls the
// stand-in's app, and the stand-in delivers its webhooks to the BFF's app. Never imported by the
// app itself.
import { stripePrices } from '@tessera/contracts'
import type { SubscriptionResponse } from '@tessera/contracts'
import type { Sql, SqlQueryable } from '@tessera/db/sql'
import { createStripeEmulator } from '@tessera/emulators/stripe/app'
import type { StripeEmulator } from '@tessera/emulators/stripe/app'
import Stripe from 'stripe'
import { z } from 'zod/mini'
import type { BillingEventOutcome, BillingSubscriptionRow } from '../platform/db/schema.ts'
import { jsonOf, startIdentityTestApp } from './identity.ts'
import type { IdentityTestApp, IdentityTestOptions, TestBrowser } from './identity.ts'
import { waitFor } from './app.ts'
import { createStripeClients } from '../modules/billing/stripe-client.ts'
import type { StripeClients } from '../modules/billing/stripe-client.ts'

export const TEST_WEBHOOK_SECRET = 'whsec_billing_tests_secret'
export const TEST_STRIPE_KEY = 'sk_test_billing_tests'
/** The stand-in's address as the SDK sees it; requests never leave the process. */
const STRIPE_ORIGIN = 'http://stripe.test'
const BFF_ORIGIN = 'http://bff.test'

/** Makes chosen statements of the app's database fail as a lost connection would. */
export interface DatabaseFaults {
  /** The next `count` statements whose SQL matches `pattern` throw SQLSTATE 08006. */
  failNext(pattern: RegExp, count?: number): void
  /** How many injected failures fired. */
  fired(): number
}

function faultyDatabase(db: Sql): { sql: Sql; faults: DatabaseFaults } {
  const rules: { pattern: RegExp; remaining: number }[] = []
  let fired = 0
  const check = (text: string): void => {
    const rule = rules.find((candidate) => candidate.remaining > 0 && candidate.pattern.test(text))
    if (rule === undefined) return
    rule.remaining -= 1
    fired += 1
    throw Object.assign(new Error('terminating connection (injected by the test)'), {
      code: '08006',
    })
  }
  const wrap = (on: SqlQueryable): SqlQueryable => ({
    query: (text, params) => {
      check(text)
      return on.query(text, params)
    },
    exec: (text) => {
      check(text)
      return on.exec(text)
    },
  })
  const direct = wrap(db)
  return {
    sql: {
      kind: db.kind,
      query: direct.query,
      exec: direct.exec,
      transaction: (fn, options) => db.transaction((tx) => fn(wrap(tx)), options),
      transactionOf: async (statement, options) => {
        check(statement.text)
        return db.transactionOf(statement, options)
      },
      listen: (channel, onNotify, options) => db.listen(channel, onNotify, options),
      close: () => db.close(),
    },
    faults: {
      failNext(pattern, count = 1) {
        rules.push({ pattern, remaining: count })
      },
      fired: () => fired,
    },
  }
}

export interface BillingTestApp {
  harness: IdentityTestApp
  /** The Stripe stand-in: `control` moves its clock, holds and delivers webhooks… */
  emulator: StripeEmulator
  /** The SDK pointed at the stand-in, for what a test does "at Stripe" (no retries). */
  stripe: Stripe
  /** The BFF's own clients (the ones the app uses). */
  clients: StripeClients
  db: Sql
  faults: DatabaseFaults
  /** Signs up a user and returns their browser and id. */
  user(email: string): Promise<{ browser: TestBrowser; userId: string }>
  /**
   * Starts a checkout through the BFF and pays it on the stand-in; returns the session id. The
   * Team plan is bought for `workspaceId`, else for a new team the browser creates and switches to.
   */
  subscribe(
    browser: TestBrowser,
    plan?: 'pro' | 'team',
    card?: string,
    options?: { workspaceId?: string },
  ): Promise<string>
  /** Creates a team workspace as this browser and makes it the session's current one. */
  createTeam(browser: TestBrowser, name?: string): Promise<string>
  /** Waits until the stand-in has no delivery queued, running or waiting for a retry. */
  webhooksSettled(): Promise<void>
  /** Signs `payload` like Stripe (`t=…,v1=…`) and POSTs it to the webhook route. */
  postEvent(payload: string, options?: { secret?: string; timestamp?: number }): Promise<Response>
  subscriptionRows(userId?: string): Promise<BillingSubscriptionRow[]>
  ledger(): Promise<{ id: string; type: string; outcome: BillingEventOutcome }[]>
  /** `GET /api/billing/subscription` for this browser. */
  subscriptionOf(browser: TestBrowser): Promise<SubscriptionResponse>
  close(): Promise<void>
}

export interface BillingTestOptions extends IdentityTestOptions {
  /** Delays between the stand-in's delivery attempts (ms). */
  retrySchedule?: number[]
}

const meSchema = z.object({ user: z.object({ id: z.string() }) })

export async function startBillingTestApp(
  options: BillingTestOptions = {},
): Promise<BillingTestApp> {
  // Filled in once the BFF is up; the stand-in only delivers after that.
  const target: { app?: IdentityTestApp['app'] } = {}
  const emulator = createStripeEmulator({
    seed: stripePrices,
    webhookUrl: `${BFF_ORIGIN}/api/billing/webhook`,
    webhookSecret: TEST_WEBHOOK_SECRET,
    retrySchedule: options.retrySchedule ?? [20, 40, 80],
    publicUrl: STRIPE_ORIGIN,
    fetch: async (url, init) => {
      if (target.app === undefined) throw new Error('The BFF is not up yet.')
      return target.app.request(url, init)
    },
  })
  // In-process, but like a network fetch: an aborted signal (the SDK's timeout) ends the wait.
  const stripeFetch = ((input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init?.signal
      if (signal?.aborted) {
        reject(signal.reason)
        return
      }
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true })
      Promise.resolve(
        emulator.app.request(input instanceof Request ? input.url : String(input), init),
      ).then(resolve, reject)
    })) as typeof fetch
  const clients = createStripeClients({
    apiUrl: STRIPE_ORIGIN,
    secretKey: TEST_STRIPE_KEY,
    fetch: stripeFetch,
  })
  const stripe = new Stripe(TEST_STRIPE_KEY, {
    host: 'stripe.test',
    port: 80,
    protocol: 'http',
    httpClient: Stripe.createFetchHttpClient(stripeFetch),
    maxNetworkRetries: 0,
  })
  let faulty: ReturnType<typeof faultyDatabase> | undefined
  const ready = await startIdentityTestApp({
    ...options,
    env: { STRIPE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, ...options.env },
    deps: { stripe: clients, ...options.deps },
    wrapDb: (db) => {
      faulty = faultyDatabase(options.wrapDb?.(db) ?? db)
      return faulty.sql
    },
  })
  target.app = ready.app
  if (faulty === undefined) throw new Error('The database was not wrapped.')
  const { faults } = faulty
  const db = ready.db

  const createTeam = async (browser: TestBrowser, name = 'Team'): Promise<string> => {
    const created = await browser.send('POST', '/api/workspaces', { name })
    if (created.status !== 201) throw new Error(`creating a team answered ${created.status}`)
    const { workspace } = z
      .object({ workspace: z.object({ id: z.string() }) })
      .parse(await created.json())
    const switched = await browser.send('POST', '/api/workspaces/current', {
      workspaceId: workspace.id,
    })
    if (switched.status !== 200) throw new Error(`switching answered ${switched.status}`)
    return workspace.id
  }

  const webhooksSettled = () =>
    waitFor(() => (emulator.control.webhooksIdle() ? true : undefined), {
      what: 'the stand-in to deliver every webhook',
      timeoutMs: 10_000,
    }).then(() => undefined)

  return {
    harness: ready,
    emulator,
    stripe,
    clients,
    db,
    faults,
    async user(email) {
      const browser = await ready.signUp(email)
      const me = meSchema.parse(await jsonOf(await browser.get('/api/me')))
      return { browser, userId: me.user.id }
    },
    createTeam,
    async subscribe(browser, plan = 'pro', card = '4242424242424242', subscribeOptions = {}) {
      const workspaceId =
        plan === 'team' ? (subscribeOptions.workspaceId ?? (await createTeam(browser))) : undefined
      const started = await browser.send('POST', '/api/billing/checkout', {
        plan,
        ...(workspaceId === undefined ? {} : { workspaceId }),
      })
      if (started.status !== 200) throw new Error(`checkout answered ${started.status}`)
      const { url } = z.object({ url: z.string() }).parse(await started.json())
      const sessionId = url.split('/').pop() ?? ''
      const paid = emulator.control.payCheckoutSession(sessionId, {
        number: card,
        expiry: '12 / 40',
        cvc: '123',
        name: 'Ada Lovelace',
      })
      if (!paid.ok) throw new Error(`the stand-in refused the card: ${paid.rejection.message}`)
      return sessionId
    },
    webhooksSettled,
    async postEvent(payload, postOptions = {}) {
      const signature = stripe.webhooks.generateTestHeaderString({
        payload,
        secret: postOptions.secret ?? TEST_WEBHOOK_SECRET,
        ...(postOptions.timestamp === undefined ? {} : { timestamp: postOptions.timestamp }),
      })
      return ready.app.request('/api/billing/webhook', {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'stripe-signature': signature,
        },
        body: payload,
      })
    },
    async subscriptionRows(userId) {
      const { rows } = await db.query<BillingSubscriptionRow>(
        userId === undefined
          ? 'select * from public.billing_subscriptions order by stripe_created_at'
          : 'select * from public.billing_subscriptions where user_id = $1 order by stripe_created_at',
        userId === undefined ? [] : [userId],
      )
      return rows
    },
    async ledger() {
      const { rows } = await db.query<{ id: string; type: string; outcome: BillingEventOutcome }>(
        'select id, type, outcome from public.billing_events order by received_at, id',
      )
      return rows
    },
    async subscriptionOf(browser) {
      const response = await browser.get('/api/billing/subscription')
      if (response.status !== 200) throw new Error(`subscription answered ${response.status}`)
      return jsonOf<SubscriptionResponse>(response)
    },
    async close() {
      emulator.control.close()
      await ready.finish()
    },
  }
}
