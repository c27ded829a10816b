// The Stripe stand-in as a Web-standard Hono app (no Node APIs), plus the control object tests use.
// `node.ts` serves it on a port; the BFF's tests can also mount it in-process.
import { Hono } from 'hono'
import { createApi, SUPPORTED_ENDPOINTS } from './api.ts'
import { createControlApi } from './control.ts'
import type { Fault, StripeEmulatorControl } from './emulator-control.ts'
import { StripeEngine } from './engine.ts'
import { StripeApiError, invalidRequest, notFoundUrl } from './errors.ts'
import { FormError } from './form.ts'
import { newRequestId } from './ids.ts'
import { createPages } from './pages.ts'
import { defaultSeed, type SeedPrice } from './seed.ts'
import { parseSavedState } from './state.ts'
import {
  WebhookDeliverer,
  type DeliveryResult,
  type LogFn,
  type WebhookEndpoint,
  type WebhookFetch,
} from './webhooks.ts'

export type { EventWithDelivery, Fault, StripeEmulatorControl } from './emulator-control.ts'

/** The API version `stripe` 23.1 pins; events carry it as `api_version`. */
export const STRIPE_API_VERSION = '2026-10-28.endive'

/** Short for local use; Stripe itself retries for up to three days. */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [
  1_000, 2_000, 5_000, 10_000, 30_000, 60_000,
]

export interface StripeEmulatorOptions {
  /** The paid plans' prices (found by lookup key). Defaults to Tessera's Pro and Team. */
  seed?: readonly SeedPrice[]
  /** Where events are POSTed (`STRIPE_WEBHOOK_URL`); without it events are only logged. */
  webhookUrl?: string | null
  /** The endpoint's signing secret (`STRIPE_WEBHOOK_SECRET`); required with `webhookUrl`. */
  webhookSecret?: string | null
  /** Origin of the hosted pages in `session.url`; defaults to the origin the request came to. */
  publicUrl?: string | null
  /** Accept only this key; by default any `sk_test_…` key is accepted. */
  apiKey?: string
  apiVersion?: string
  /** Shown on the hosted pages ("Return to Tessera"). */
  businessName?: string
  /** Delays in ms between delivery attempts; attempts = 1 + its length. */
  retrySchedule?: readonly number[]
  webhookTimeoutMs?: number
  /** How webhooks are sent; a test can pass another app's `request` to deliver in-process. */
  fetch?: WebhookFetch
  /** A state saved earlier with `control.snapshot()` (JSON). */
  initialState?: unknown
  /** Called after anything changed, so a host can persist `control.snapshot()`. */
  onChange?: () => void
  log?: LogFn
}

export type StripeEmulatorEnv = { Variables: { requestId: string; notReplayable: boolean } }

export interface StripeEmulator {
  app: Hono<StripeEmulatorEnv>
  control: StripeEmulatorControl
}

const silent: LogFn = () => undefined

export function createStripeEmulator(options: StripeEmulatorOptions = {}): StripeEmulator {
  const log = options.log ?? silent
  const onChange = options.onChange ?? (() => undefined)
  if (options.webhookUrl && !options.webhookSecret) {
    throw new Error('STRIPE_WEBHOOK_SECRET is required when STRIPE_WEBHOOK_URL is set.')
  }
  let endpoint: WebhookEndpoint | null = options.webhookUrl
    ? { url: options.webhookUrl, secret: options.webhookSecret ?? '' }
    : null

  // The engine and the deliverer refer to each other through these closures.
  let deliverer: WebhookDeliverer | null = null
  const engine = new StripeEngine({
    apiVersion: options.apiVersion ?? STRIPE_API_VERSION,
    accountName: options.businessName ?? 'Tessera',
    seed: options.seed ?? defaultSeed,
    onEvent: (event) => deliverer?.register(event),
  })
  deliverer = new WebhookDeliverer({
    endpoint: () => endpoint,
    event: (id) => engine.state.events[id],
    deliveries: () => engine.state.deliveries,
    retrySchedule: options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    timeoutMs: options.webhookTimeoutMs ?? 10_000,
    fetch: options.fetch ?? ((url, init) => fetch(url, init)),
    onChange,
    log,
  })
  const webhooks = deliverer

  if (options.initialState !== undefined) {
    const saved = parseSavedState(options.initialState)
    if (saved.ok) {
      engine.load(saved.state)
      webhooks.restore()
    } else {
      log('warn', 'ignoring saved Stripe stand-in state', { reason: saved.reason })
    }
  }

  let faults: Fault[] = []
  const timers = new Set<ReturnType<typeof setTimeout>>()

  const control: StripeEmulatorControl = {
    now: () => engine.now(),
    advanceClock: (seconds) => {
      const steps = engine.advance(seconds)
      onChange()
      return steps
    },
    pauseWebhooks: () => webhooks.pause(),
    resumeWebhooks: () => webhooks.resume(),
    deliver: async (eventIds) => {
      const results: DeliveryResult[] = []
      for (const id of eventIds) results.push(await webhooks.deliverNow(id, 'manual'))
      return results
    },
    resend: (eventId) => webhooks.deliverNow(eventId, 'resend'),
    setWebhookEndpoint: (next) => {
      endpoint = next
    },
    events: () =>
      Object.values(engine.state.events).map((event) => ({
        event: structuredClone(event),
        delivery: structuredClone(engine.state.deliveries[event.id] ?? null),
      })),
    webhooksIdle: () => webhooks.idle(),
    payCheckoutSession: (id, card) => {
      const result = engine.completeCheckout(id, card, { requestId: null, idempotencyKey: null })
      onChange()
      return result
    },
    reset: () => {
      faults = []
      webhooks.clear()
      engine.reset()
      onChange()
    },
    state: () => {
      const { idempotency, ...rest } = engine.state
      return {
        now: engine.now(),
        webhooks: {
          url: endpoint?.url ?? null,
          paused: webhooks.paused,
          queued: webhooks.pendingIds(),
        },
        idempotencyKeys: Object.keys(idempotency).length,
        ...structuredClone(rest),
      }
    },
    snapshot: () => structuredClone(engine.state),
    injectFault: (fault) => {
      faults.push({ ...fault })
    },
    clearFaults: () => {
      faults = []
    },
    close: () => {
      webhooks.close()
      for (const timer of timers) clearTimeout(timer)
    },
  }

  const app = new Hono<StripeEmulatorEnv>()

  app.use('*', async function requestId(c, next) {
    const id = newRequestId()
    c.set('requestId', id)
    await next()
    c.res.headers.set('Request-Id', id)
    c.res.headers.set(
      'Stripe-Version',
      c.req.header('Stripe-Version') ?? options.apiVersion ?? STRIPE_API_VERSION,
    )
    if (c.req.method !== 'GET') onChange()
  })

  app.onError((error, c) => {
    if (error instanceof FormError) {
      return c.json({ error: invalidRequest(error.message, error.param).body }, 400)
    }
    if (error instanceof StripeApiError) {
      if (!error.replayable) c.set('notReplayable', true)
      return c.json({ error: error.body }, error.status as 400)
    }
    log('error', 'Stripe stand-in failed', {
      error: error instanceof Error ? error.message : String(error),
      path: c.req.path,
    })
    return c.json(
      {
        error: {
          type: 'api_error',
          message: `The Stripe stand-in failed while handling ${c.req.method} ${c.req.path}: ${error.message}`,
        },
      },
      500,
    )
  })

  app.notFound((c) => {
    const error = notFoundUrl(c.req.method, c.req.path, SUPPORTED_ENDPOINTS)
    return c.json({ error: error.body }, 404)
  })

  app.get('/', (c) =>
    c.json({
      name: 'Tessera Stripe stand-in',
      api: SUPPORTED_ENDPOINTS,
      pages: ['/checkout/:id', '/portal/:id'],
      emulator:
        '/_emulator/{state,clock,clock/advance,events,events/:id/resend,deliver,webhooks/pause,webhooks/resume,webhooks/endpoint,checkout/:id/pay,faults,reset}',
    }),
  )

  const api = createApi({
    engine,
    state: () => engine.state,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    publicUrl: (c) => (options.publicUrl ?? new URL(c.req.url).origin).replace(/\/$/, ''),
  })
  app.use('/v1/*', async function injectFaults(c, next) {
    const fault = faults.find(
      (f) =>
        (f.method === undefined || f.method.toUpperCase() === c.req.method) &&
        (f.path === undefined || c.req.path.startsWith(f.path)),
    )
    if (!fault) return next()
    fault.count -= 1
    faults = faults.filter((f) => f.count > 0)
    if (fault.delayMs) {
      const delay = fault.delayMs
      await new Promise<void>((done) => {
        const timer = setTimeout(() => {
          timers.delete(timer)
          done()
        }, delay)
        timers.add(timer)
      })
    }
    if (fault.status === 429) {
      const body = {
        type: 'invalid_request_error',
        code: 'rate_limit',
        message: 'Too many requests hit the API too quickly (injected by the stand-in).',
      }
      return c.json({ error: body }, 429)
    }
    if (fault.status) {
      // Stripe marks its own 5xx as safe to retry; the SDK honours this header.
      c.header('Stripe-Should-Retry', 'true')
      const body = {
        type: 'api_error',
        message: `An error occurred with our API (HTTP ${fault.status} injected by the stand-in).`,
      }
      return c.json({ error: body }, fault.status)
    }
    return next()
  })
  app.route('/v1', api)
  app.route('/', createPages({ engine, businessName: options.businessName ?? 'Tessera' }))
  app.route('/_emulator', createControlApi(control))

  return { app, control }
}
