// Shared by the stand-in's tests: a running stand-in on a free port, the real SDK pointed at it,
// and a webhook receiver that verifies every delivery with the SDK's own signature check.
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'
import type { StripeEmulatorOptions } from './app.ts'
import { startStripeEmulator, type RunningStripeEmulator } from './node.ts'

export const WEBHOOK_SECRET = 'whsec_test_secret_for_the_stand_in'
export const PRO = 'tessera_pro_monthly'
export const TEAM = 'tessera_team_monthly'

export interface ReceivedWebhook {
  event: Stripe.Event
  raw: string
  signature: string
  answeredWith: number
}

export interface WebhookReceiver {
  url: string
  /** Deliveries that passed `constructEventAsync`, in arrival order (including ones answered 500). */
  received: ReceivedWebhook[]
  /** Deliveries whose signature did not verify. */
  rejected: string[]
  /** Status codes for the next deliveries, used in order; then 200. */
  respondWith(...statuses: number[]): void
  close(): Promise<void>
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

export async function startWebhookReceiver(secret = WEBHOOK_SECRET): Promise<WebhookReceiver> {
  const stripe = new Stripe('sk_test_receiver')
  const crypto = Stripe.createSubtleCryptoProvider()
  const received: ReceivedWebhook[] = []
  const rejected: string[] = []
  const statuses: number[] = []
  const server: Server = createServer((req, res) => {
    void readBody(req).then(async (raw) => {
      const signature = String(req.headers['stripe-signature'] ?? '')
      try {
        const event = await stripe.webhooks.constructEventAsync(
          raw,
          signature,
          secret,
          undefined,
          crypto,
        )
        const status = statuses.shift() ?? 200
        received.push({ event, raw, signature, answeredWith: status })
        res.writeHead(status, { 'Content-Type': 'application/json' }).end('{"received":true}')
      } catch (error) {
        rejected.push(error instanceof Error ? error.message : String(error))
        res.writeHead(400).end('bad signature')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    received,
    rejected,
    respondWith: (...next) => statuses.push(...next),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

export interface Stand {
  emulator: RunningStripeEmulator
  stripe: Stripe
  receiver: WebhookReceiver
  /** The events the receiver accepted (2xx) of one type, in arrival order. */
  delivered(type: string): Stripe.Event[]
  close(): Promise<void>
}

/** A stand-in on a free port with a verifying webhook receiver and fast retries. */
export async function startStand(
  options: StripeEmulatorOptions & { stateFile?: string } = {},
): Promise<Stand> {
  const receiver = await startWebhookReceiver()
  const emulator = await startStripeEmulator({
    port: 0,
    webhookUrl: receiver.url,
    webhookSecret: WEBHOOK_SECRET,
    retrySchedule: [20, 40, 80],
    ...options,
  })
  const stripe = new Stripe('sk_test_local', {
    host: '127.0.0.1',
    port: emulator.port,
    protocol: 'http',
    maxNetworkRetries: 0,
  })
  return {
    emulator,
    stripe,
    receiver,
    delivered: (type) =>
      receiver.received
        .filter((r) => r.event.type === type && r.answeredWith < 300)
        .map((r) => r.event),
    close: async () => {
      await emulator.close()
      await receiver.close()
    },
  }
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

export interface CardForm {
  number: string
  expiry?: string
  cvc?: string
  name?: string
  email?: string
}

/** Submits a hosted form (checkout or portal) the way a browser does, without following redirects. */
export function submitForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })
}

export function payWithCard(sessionUrl: string, card: CardForm): Promise<Response> {
  return submitForm(sessionUrl, {
    number: card.number,
    expiry: card.expiry ?? '12 / 40',
    cvc: card.cvc ?? '123',
    name: card.name ?? 'Ada Lovelace',
    ...(card.email !== undefined ? { email: card.email } : {}),
  })
}

/** Creates a customer and a subscription paid with `card` through the hosted checkout page. */
export async function subscribe(
  stand: Stand,
  options: {
    card?: string
    lookupKey?: string
    trialDays?: number
    email?: string
    quantity?: number
  } = {},
): Promise<{
  customer: Stripe.Customer
  session: Stripe.Checkout.Session
  subscription: Stripe.Subscription
}> {
  const { stripe } = stand
  const prices = await stripe.prices.list({ lookup_keys: [options.lookupKey ?? PRO] })
  const price = prices.data[0]
  if (!price) throw new Error('seeded price missing')
  const customer = await stripe.customers.create({ email: options.email ?? 'ada@example.com' })
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: price.id, quantity: options.quantity ?? 1 }],
    success_url: 'http://app.test/billing/return?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://app.test/billing',
    client_reference_id: 'user_1',
    subscription_data: {
      metadata: { user_id: 'user_1' },
      ...(options.trialDays ? { trial_period_days: options.trialDays } : {}),
    },
  })
  if (!session.url) throw new Error('session has no url')
  const response = await payWithCard(session.url, { number: options.card ?? '4242 4242 4242 4242' })
  if (response.status !== 303) throw new Error(`checkout answered ${response.status}`)
  const completed = await stripe.checkout.sessions.retrieve(session.id, {
    expand: ['subscription'],
  })
  const subscription = completed.subscription
  if (!subscription || typeof subscription === 'string') throw new Error('no subscription')
  return { customer, session: completed, subscription }
}
