// The fuzz sweep (issue 14): every /api route, as the app lists them, gets requests generated from
// its zod schemas — valid, boundary and hostile — with and without a session, and with the CSRF
// header so they reach the handlers. No answer may be a 5xx, every 4xx is a catalogued JSON error,
// no request may hang, and in the end each user's counted usage equals that of their answers.
// FUZZ_SEED and FUZZ_RUNS (cases per route) override the defaults.
import * as contracts from '@tessera/contracts'
import {
  checkoutSessionIdSchema,
  conversationPageQuerySchema,
  errorBodySchema,
  isCatalogued,
  legacyCspReportSchema,
  searchQuerySchema,
  reconcileBodySchema,
  remoteNameSchema,
  stripePrices,
} from '@tessera/contracts'
import { createStripeEmulator } from '@tessera/emulators/stripe/app'
import fc from 'fast-check'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod/mini'
import { createStripeClients } from '../modules/billing/stripe-client.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'
import { cliActor } from '../modules/deploy/actor.ts'
import { createOperatorRoles } from '../modules/console/operator-roles.ts'
import { overrideBodySchema } from '../modules/registry/remote-overrides.ts'
import { TEST_ORIGIN } from '../testing/app.ts'
import { startAssistantTestApp } from '../testing/assistant.ts'
import type { AssistantTestApp } from '../testing/assistant.ts'
import { fuzzCaseArbitrary, listApiRoutes } from '../testing/fuzz.ts'
import type { ApiRoute, FuzzCase } from '../testing/fuzz.ts'
import { databaseSetupTimeout, testPassword } from '../testing/identity.ts'
import type { TestBrowser } from '../testing/identity.ts'

// The sweep's only settings, read once (the test's own env, not the app's).
const settings = z
  .object({
    FUZZ_SEED: z._default(z.coerce.number().check(z.int()), 20261126),
    FUZZ_RUNS: z._default(z.coerce.number().check(z.int(), z.positive()), 150),
  })
  .parse({
    FUZZ_SEED: process.env.FUZZ_SEED || undefined,
    FUZZ_RUNS: process.env.FUZZ_RUNS || undefined,
  })

/** Schemas of what routes read outside a `jsonBody` body: queries, and path parameters by name. */
const querySchemas: Record<string, z.core.$ZodType> = {
  'GET /api/assistant/conversations': conversationPageQuerySchema,
  'GET /api/assistant/search': searchQuerySchema,
}
const paramSchemas: Record<string, z.core.$ZodType> = {
  name: remoteNameSchema,
  sessionId: checkoutSessionIdSchema,
}
/** The shape of the Stripe events the webhook handles (the sweep signs half of what it sends). */
const stripeEventSchema = z.object({
  id: z.string().check(z.regex(/^evt_[A-Za-z0-9]{1,20}$/)),
  object: z.literal('event'),
  type: z.enum([
    'customer.subscription.created',
    'customer.subscription.updated',
    'customer.subscription.deleted',
    'checkout.session.completed',
    'charge.refunded',
  ]),
  created: z.int().check(z.gte(0), z.lte(2_000_000_000)),
  livemode: z.boolean(),
  data: z.object({
    object: z.object({
      id: z.string().check(z.regex(/^(sub|cs)_[A-Za-z0-9]{1,12}$/)),
      object: z.enum(['subscription', 'checkout.session']),
      customer: z.string().check(z.regex(/^cus_[A-Za-z0-9]{1,12}$/)),
      subscription: z.nullable(z.string().check(z.regex(/^sub_[A-Za-z0-9]{1,12}$/))),
      mode: z.enum(['subscription', 'payment']),
      status: z.enum(['active', 'trialing', 'past_due', 'canceled', 'incomplete', 'complete']),
      metadata: z.record(z.string(), z.string()),
    }),
  }),
})
const webhookSecret = 'whsec_fuzz'
const stripeSdk = new Stripe('sk_test_fuzz')

/** Bodies a handler reads itself (raw, for a signature, or not JSON) rather than through `jsonBody`. */
const handlerBodies: Record<string, { schema: z.core.$ZodType; contentType?: string }> = {
  'POST /api/billing/reconcile': { schema: reconcileBodySchema },
  'POST /api/billing/webhook': { schema: stripeEventSchema },
  'POST /api/csp-reports': { schema: legacyCspReportSchema, contentType: 'application/csp-report' },
}

/** How long one request (and its answer stream) may take before it counts as a hang. */
const requestTimeoutMs = 10_000

let t: AssistantTestApp
/** The two signed-in users: `owner`'s conversations are the known ids; `other` must not reach them. */
interface User {
  browser: TestBrowser
  id: string
  email: string
}
const users: Partial<Record<'owner' | 'other', User>> = {}
const userOf = (who: 'owner' | 'other'): User => {
  const user = users[who]
  if (user === undefined) throw new Error(`The ${who} is not signed up.`)
  return user
}
let deployToken: string
const checkoutSessions: string[] = []
/** Tokens of answers the sweep deleted with their conversation, per user. */
const deletedUsage = new Map<string, number>()

beforeAll(async () => {
  const target: { app?: AssistantTestApp['app'] } = {}
  const emulator = createStripeEmulator({
    seed: stripePrices,
    webhookUrl: 'http://bff.test/api/billing/webhook',
    webhookSecret,
    retrySchedule: [20],
    publicUrl: 'http://stripe.test',
    fetch: async (url, init) => {
      if (target.app === undefined) throw new Error('The BFF is not up yet.')
      return target.app.request(url, init)
    },
  })
  const stripe = createStripeClients({
    apiUrl: 'http://stripe.test',
    secretKey: 'sk_test_fuzz',
    fetch: ((input: string | URL | Request, init?: RequestInit) =>
      Promise.resolve(
        emulator.app.request(input instanceof Request ? input.url : String(input), init),
      )) as typeof fetch,
  })
  t = await startAssistantTestApp({
    env: {
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      EMAIL_SEND_RATE_LIMIT: '100000',
      // Builds are never downloaded: no generated URL is on this origin.
      DEPLOY_STORAGE_ORIGINS: 'http://storage.fuzz.invalid',
    },
    deps: { stripe },
  })
  target.app = t.app
  for (const who of ['owner', 'other'] as const) {
    const browser = await t.user(`fuzz-${who}`)
    const me = (await (await browser.get('/api/me')).json()) as { user: { email: string } }
    users[who] = { browser, id: browser.id, email: me.user.email }
  }
  deployToken = (await createDeployTokens({ sql: t.db, clock: t.clock }).issue('billing', 'fuzz'))
    .token
  // The owner is an operator, so the console's routes are swept past their guard too.
  await createOperatorRoles({ sql: t.db, clock: t.clock }).grant(
    userOf('owner').email,
    cliActor('fuzz'),
  )
}, databaseSetupTimeout)
afterAll(() => t.finish())

/** A user's session, signed in again when the sweep signed it out. */
async function ensureSession(who: 'owner' | 'other'): Promise<void> {
  const user = userOf(who)
  const me = (await (await user.browser.get('/api/me')).json()) as { user: unknown }
  if (me.user !== null) return
  user.browser = await t.signIn(user.email, testPassword)
}

/** The value of a known parameter: a conversation of the owner, a remote, a checkout. */
async function knownParam(name: string, index: number): Promise<string> {
  if (name === 'name') return ['billing', 'auth', 'ai'][index % 3] ?? 'billing'
  if (name === 'sessionId')
    return checkoutSessions[index % Math.max(1, checkoutSessions.length)] ?? 'cs_test_none'
  const { rows } = await t.db.query<{ id: string }>(
    'select id from assistant_conversations where user_id = $1 order by created_at',
    [userOf('owner').id],
  )
  return rows[index % Math.max(1, rows.length)]?.id ?? crypto.randomUUID()
}

/** The case's path, and the value it gave each parameter. */
async function pathOf(
  route: ApiRoute,
  input: FuzzCase,
): Promise<{ path: string; values: Record<string, string> }> {
  let path = route.path
  const values: Record<string, string> = {}
  for (const [index, name] of route.params.entries()) {
    const param = input.params[index] ?? { literal: '' }
    const value = 'known' in param ? await knownParam(name, param.known) : param.literal
    values[name] = value
    path = path.replace(`:${name}`, encodeURIComponent(value))
  }
  const query = new URLSearchParams(input.query).toString()
  return { path: query === '' ? path : `${path}?${query}`, values }
}

/** Bounds a promise; a request that takes longer is a hang. */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hang: ${what}`)), requestTimeoutMs)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

interface Outcome {
  status: number
  problem: string | null
}

/** The `error` event of an SSE answer whose code is a server-side failure (5xx), if any. */
function streamFailureOf(text: string): string | null {
  for (const frame of text.split('\n\n')) {
    const lines = frame.split('\n')
    if (!lines.includes('event: error')) continue
    const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '{}'
    const code = z.object({ code: z.string() }).safeParse(JSON.parse(data))
    const status = code.success
      ? contracts.errorCatalogue[code.data.code as contracts.ErrorCode]?.status
      : undefined
    if (status === undefined || status >= 500) return `a stream error event: ${data.slice(0, 300)}`
  }
  return null
}

/** Sends one case and judges its answer. */
async function send(route: ApiRoute, input: FuzzCase, client: string): Promise<Outcome> {
  const { path, values } = await pathOf(route, input)
  const headers: Record<string, string> = {
    origin: TEST_ORIGIN,
    'x-tessera-csrf': '1',
    'x-test-client': client,
  }
  if (input.contentType !== undefined) headers['content-type'] = input.contentType
  if (input.session !== 'none') {
    headers.cookie = `tessera_session=${userOf(input.session).browser.cookie() ?? ''}`
    headers.authorization = `Bearer ${deployToken}`
    // Signed as Stripe signs, so hostile events reach the handler past the signature check.
    if (route.path === '/api/billing/webhook' && input.body !== undefined)
      headers['stripe-signature'] = stripeSdk.webhooks.generateTestHeaderString({
        payload: typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body),
        secret: webhookSecret,
      })
  }
  // A conversation about to be deleted takes its answers' usage with it: note it first.
  let deleting: { userId: string; tokens: number } | null = null
  const id = values.id ?? ''
  if (
    route.method === 'DELETE' &&
    route.path === '/api/assistant/conversations/:id' &&
    z.uuid().safeParse(id).success
  ) {
    const { rows } = await t.db.query<{ user_id: string; tokens: string }>(
      `select user_id, coalesce(sum(prompt_tokens + completion_tokens), 0)::text as tokens
       from assistant_messages where conversation_id = $1 group by user_id`,
      [id],
    )
    const row = rows[0]
    if (row !== undefined) deleting = { userId: row.user_id, tokens: Number(row.tokens) }
  }
  const label = `${route.method} ${path.slice(0, 120)}`
  const response = await bounded(
    Promise.resolve(
      t.app.request(path, {
        method: route.method,
        headers,
        ...(input.body === undefined ? {} : { body: input.body }),
      }),
    ),
    label,
  )
  const { status } = response
  const type = response.headers.get('content-type') ?? ''
  if (status >= 200 && status < 300) {
    const ownersConversation =
      route.path.startsWith('/api/assistant/conversations/:id') &&
      input.params.some((param) => 'known' in param)
    if (input.session === 'other' && ownersConversation) {
      await response.body?.cancel()
      return {
        status,
        problem: `${label} → ${status}: another user reached the owner's conversation`,
      }
    }
    if (type.startsWith('text/event-stream') && route.path === '/api/events')
      await response.body?.cancel()
    else {
      const text = await bounded(response.text(), `${label} (reading the answer)`)
      if (route.path === '/api/billing/checkout') {
        const url = z.object({ url: z.string() }).safeParse(JSON.parse(text))
        if (url.success) checkoutSessions.push(url.data.url.split('/').pop() ?? '')
      }
      // An answer stream that ends in a server-side error is a 5xx in a 200's clothing.
      const failure = type.startsWith('text/event-stream') ? streamFailureOf(text) : null
      if (failure !== null) return { status, problem: `${label} → 200, then ${failure}` }
    }
    if (deleting !== null && status === 204)
      deletedUsage.set(deleting.userId, (deletedUsage.get(deleting.userId) ?? 0) + deleting.tokens)
    if (route.path === '/api/auth/sign-out' || route.path === '/api/me/sessions/:id')
      if (input.session !== 'none') await ensureSession(input.session)
    return { status, problem: null }
  }
  const text = await bounded(response.text(), `${label} (reading the error)`)
  if (input.session !== 'none' && status === 401) await ensureSession(input.session)
  if (status >= 500) return { status, problem: `${label} → ${status} ${text.slice(0, 300)}` }
  let parsed: ReturnType<typeof errorBodySchema.safeParse>
  try {
    parsed = errorBodySchema.safeParse(JSON.parse(text))
  } catch {
    return { status, problem: `${label} → ${status}, not JSON: ${text.slice(0, 200)}` }
  }
  if (!parsed.success || !isCatalogued(parsed.data.error.code, status))
    return { status, problem: `${label} → ${status}, not a catalogue error: ${text.slice(0, 200)}` }
  return { status, problem: null }
}

/** The contracts name of a schema, for the report. */
function schemaName(schema: z.core.$ZodType | undefined): string {
  if (schema === undefined) return '—'
  if (schema === overrideBodySchema) return 'overrideBodySchema (bff)'
  if (schema === stripeEventSchema) return 'stripeEventSchema (this test)'
  const found = Object.entries(contracts).find(([, value]) => value === schema)
  return found?.[0] ?? 'an unnamed schema'
}

/** A short, replayable description of a case, for a failure message. */
function describeCase(input: FuzzCase): string {
  const body =
    input.body instanceof Uint8Array
      ? `bytes ${[...input.body].join(',')}`
      : JSON.stringify(input.body?.slice(0, 300))
  return `${input.kind}, session: ${input.session}, content-type: ${String(input.contentType)}, params: ${JSON.stringify(input.params).slice(0, 200)}, body: ${body}`
}

describe('the fuzz sweep', () => {
  it(
    'answers generated requests to every /api route with a catalogued error or success, never a 5xx or a hang, and counts exactly the stored answers',
    { timeout: 300_000 },
    async () => {
      const routes = listApiRoutes(t.app, querySchemas).map((route) => {
        const body = handlerBodies[`${route.method} ${route.path}`]
        return body === undefined || route.body !== undefined
          ? route
          : { ...route, body: body.schema, ...body }
      })
      // The list comes from the app: the routes every part of the BFF mounts are all in it.
      expect(routes.length).toBeGreaterThan(30)
      for (const known of [
        'POST /api/assistant/conversations/:id/messages',
        'PATCH /api/me/profile',
        'POST /api/deploy/remotes/:name/versions',
        'POST /api/csp-reports',
      ])
        expect(routes.map((route) => `${route.method} ${route.path}`)).toContain(known)

      const problems: string[] = []
      const rows: {
        route: string
        schema: string
        cases: number
        statuses: Map<number, number>
      }[] = []
      const started = Date.now()
      for (const [index, route] of routes.entries()) {
        const cases = fc.sample(fuzzCaseArbitrary(route, paramSchemas), {
          seed: settings.FUZZ_SEED + index,
          numRuns: settings.FUZZ_RUNS,
        })
        const statuses = new Map<number, number>()
        for (const [i, input] of cases.entries()) {
          let outcome: Outcome
          try {
            outcome = await send(route, input, `fuzz-${index}-${i % 10}`)
          } catch (error) {
            outcome = { status: 0, problem: `${route.method} ${route.path}: ${String(error)}` }
          }
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1)
          if (outcome.problem !== null)
            problems.push(`${outcome.problem}\n  case: ${describeCase(input)}`)
        }
        rows.push({
          route: `${route.method} ${route.path}`,
          schema: [
            route.body === undefined ? null : `body ${schemaName(route.body)}`,
            route.query === undefined ? null : `query ${schemaName(route.query)}`,
            ...route.params.map(
              (name) =>
                `:${name} ${schemaName(paramSchemas[name]) === '—' ? 'uuid' : schemaName(paramSchemas[name])}`,
            ),
          ]
            .filter((part) => part !== null)
            .join(', '),
          cases: cases.length,
          statuses,
        })
      }

      // The usage invariant, read from the tables: counted = the answers stored + those deleted.
      const { rows: usage } = await t.db.query<{ user_id: string; used: string; reserved: string }>(
        `select user_id, sum(used_tokens)::text as used, sum(reserved_tokens)::text as reserved
         from assistant_usage group by user_id`,
      )
      const { rows: answers } = await t.db.query<{ user_id: string; tokens: string }>(
        `select user_id, coalesce(sum(prompt_tokens + completion_tokens), 0)::text as tokens
         from assistant_messages where role = 'assistant' group by user_id`,
      )
      const stored = new Map(answers.map((row) => [row.user_id, Number(row.tokens)]))
      const invariant = usage.map((row) => ({
        user: row.user_id,
        used: Number(row.used),
        reserved: Number(row.reserved),
        answers: (stored.get(row.user_id) ?? 0) + (deletedUsage.get(row.user_id) ?? 0),
      }))

      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      const allStatuses = [...new Set(rows.flatMap((row) => [...row.statuses.keys()]))].sort()
      const width = Math.max(...rows.map((row) => row.route.length))
      const header = `${'route'.padEnd(width)} | cases | ${allStatuses.map((s) => String(s).padStart(4)).join(' ')} | schemas`
      const lines = rows.map(
        (row) =>
          `${row.route.padEnd(width)} | ${String(row.cases).padStart(5)} | ${allStatuses
            .map((s) => String(row.statuses.get(s) ?? '').padStart(4))
            .join(' ')} | ${row.schema}`,
      )
      console.log(
        [
          `fuzz sweep: seed ${settings.FUZZ_SEED}, ${settings.FUZZ_RUNS} cases per route, ${routes.length} routes, ${seconds} s`,
          header,
          '-'.repeat(header.length),
          ...lines,
          '',
          `usage invariant (${invariant.length} users with usage): ${JSON.stringify(invariant)}`,
          `problems: ${problems.length}`,
        ].join('\n'),
      )

      expect(problems, problems.slice(0, 20).join('\n')).toEqual([])
      for (const row of invariant) {
        expect(row.reserved, `tokens still held for ${row.user}`).toBe(0)
        expect(row.used, `usage of ${row.user} against their answers`).toBe(row.answers)
      }
      // The sweep reached the model: the invariant is about something.
      expect(invariant.some((row) => row.used > 0)).toBe(true)
    },
  )
})
