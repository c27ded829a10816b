import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { createStripeEmulator, type EventWithDelivery } from './app.ts'
import { startStand, waitFor, WEBHOOK_SECRET, type Stand } from './test-support.ts'
import { signWebhookPayload } from './webhooks.ts'

const sdk = new Stripe('sk_test_verifier')
const cryptoProvider = Stripe.createSubtleCryptoProvider()

let stand: Stand | null = null
afterEach(async () => {
  await stand?.close()
  stand = null
})

async function emulatorEvents(s: Stand, type?: string): Promise<EventWithDelivery[]> {
  const response = await fetch(`${s.emulator.url}/_emulator/events${type ? `?type=${type}` : ''}`)
  return ((await response.json()) as { data: EventWithDelivery[] }).data
}

describe('signWebhookPayload', () => {
  it('produces a header the SDK accepts, and that fails for another payload', async () => {
    const payload = JSON.stringify({ id: 'evt_1', object: 'event', type: 'customer.created' })
    const header = await signWebhookPayload(payload, WEBHOOK_SECRET, Math.floor(Date.now() / 1000))
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)
    const event = await sdk.webhooks.constructEventAsync(
      payload,
      header,
      WEBHOOK_SECRET,
      undefined,
      cryptoProvider,
    )
    expect(event.id).toBe('evt_1')
    await expect(
      sdk.webhooks.constructEventAsync(
        payload.replace('evt_1', 'evt_2'),
        header,
        WEBHOOK_SECRET,
        undefined,
        cryptoProvider,
      ),
    ).rejects.toThrow(Stripe.errors.StripeSignatureVerificationError)
  })

  it('matches the SDK’s own test header for the same timestamp', async () => {
    const payload = '{"id":"evt_same"}'
    const timestamp = 1_700_000_000
    const ours = await signWebhookPayload(payload, WEBHOOK_SECRET, timestamp)
    const theirs = sdk.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp,
    })
    expect(ours).toBe(theirs)
  })
})

describe('webhook delivery', () => {
  it('delivers a signed event with Stripe’s envelope for each change', async () => {
    stand = await startStand()
    const customer = await stand.stripe.customers.create(
      { email: 'hook@example.com' },
      { idempotencyKey: 'hook-key' },
    )
    const [event] = await waitFor(() => {
      const found = stand?.delivered('customer.created')
      return found && found.length > 0 ? found : undefined
    }, 'customer.created delivery')
    expect(event).toMatchObject({
      object: 'event',
      type: 'customer.created',
      api_version: '2026-10-28.endive',
      livemode: false,
      pending_webhooks: 1,
      request: { id: customer.lastResponse.requestId, idempotency_key: 'hook-key' },
      data: { object: { id: customer.id, object: 'customer', email: 'hook@example.com' } },
    })
    expect(event?.id).toMatch(/^evt_/)
    expect(stand.receiver.rejected).toEqual([])
    // Pretty-printed like Stripe's, so a receiver that re-serialises instead of using the raw body fails.
    expect(stand.receiver.received[0]?.raw).toContain('\n  "id": "evt_')
  })

  it('sends previous_attributes with an update', async () => {
    stand = await startStand()
    const customer = await stand.stripe.customers.create({ name: 'Before' })
    await stand.stripe.customers.update(customer.id, { name: 'After' })
    const [updated] = await waitFor(() => {
      const found = stand?.delivered('customer.updated')
      return found && found.length > 0 ? found : undefined
    }, 'customer.updated delivery')
    expect(updated?.data.previous_attributes).toEqual({ name: 'Before' })
  })

  it('retries after a 500 and logs the second, successful attempt', async () => {
    stand = await startStand()
    stand.receiver.respondWith(500)
    await stand.stripe.customers.create({ email: 'retry@example.com' })
    const s = stand
    const [entry] = await waitFor(async () => {
      const events = await emulatorEvents(s, 'customer.created')
      return events[0]?.delivery?.status === 'succeeded' ? events : undefined
    }, 'a successful retry')
    expect(entry?.delivery?.attempts.map((a) => [a.trigger, a.statusCode])).toEqual([
      ['automatic', 500],
      ['retry', 200],
    ])
    const arrivals = stand.receiver.received.filter((r) => r.event.type === 'customer.created')
    expect(arrivals.map((r) => r.answeredWith)).toEqual([500, 200])
    expect(arrivals[0]?.event.id).toBe(arrivals[1]?.event.id)
  })

  it('gives up after the last attempt of the schedule', async () => {
    stand = await startStand({ retrySchedule: [10, 10] })
    stand.receiver.respondWith(500, 503, 500)
    await stand.stripe.customers.create({})
    const s = stand
    const [entry] = await waitFor(async () => {
      const events = await emulatorEvents(s, 'customer.created')
      return events[0]?.delivery?.status === 'failed' ? events : undefined
    }, 'delivery to give up')
    expect(entry?.delivery?.attempts.map((a) => a.statusCode)).toEqual([500, 503, 500])
    expect(entry?.event.pending_webhooks).toBe(0)
  })

  it('retries after a network error', async () => {
    let calls = 0
    const { app, control } = createStripeEmulator({
      webhookUrl: 'http://receiver.test/hook',
      webhookSecret: WEBHOOK_SECRET,
      retrySchedule: [5],
      fetch: async () => {
        calls += 1
        if (calls === 1) throw new TypeError('fetch failed: connection refused')
        return new Response('ok')
      },
    })
    try {
      await app.request('/v1/customers', {
        method: 'POST',
        headers: {
          Authorization: 'Bearer sk_test_x',
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'email=net%40example.com',
      })
      const entry = await waitFor(() => {
        const e = control.events()[0]
        return e?.delivery?.status === 'succeeded' ? e : undefined
      }, 'delivery after a network error')
      expect(entry.delivery?.attempts.map((a) => a.error)).toEqual([
        'fetch failed: connection refused',
        null,
      ])
    } finally {
      control.close()
    }
  })

  it('starts a delivery only after the request that caused it has returned', async () => {
    const sent: string[] = []
    const { app, control } = createStripeEmulator({
      webhookUrl: 'http://receiver.test/hook',
      webhookSecret: WEBHOOK_SECRET,
      fetch: async (_url, init) => {
        sent.push(String(init.body))
        return new Response('ok')
      },
    })
    try {
      const response = await app.request('/v1/customers', {
        method: 'POST',
        headers: { Authorization: 'Bearer sk_test_x' },
      })
      expect(response.status).toBe(200)
      expect(sent).toEqual([])
      await waitFor(() => sent.length === 1, 'the delivery')
    } finally {
      control.close()
    }
  })

  it('holds deliveries while paused and delivers chosen events in the given order', async () => {
    stand = await startStand()
    await fetch(`${stand.emulator.url}/_emulator/webhooks/pause`, { method: 'POST' })
    const first = await stand.stripe.customers.create({ name: 'first' })
    const second = await stand.stripe.customers.create({ name: 'second' })
    const events = await emulatorEvents(stand, 'customer.created')
    expect(events.map((e) => e.delivery?.status)).toEqual(['pending', 'pending'])
    expect(events.every((e) => e.delivery?.attempts.length === 0)).toBe(true)
    const [firstEvent, secondEvent] = events
    const response = await fetch(`${stand.emulator.url}/_emulator/deliver`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ eventIds: [secondEvent?.event.id, firstEvent?.event.id] }),
    })
    const body = (await response.json()) as {
      deliveries: { eventId: string; ok: boolean; statusCode: number }[]
    }
    expect(body.deliveries.map((d) => [d.eventId, d.ok, d.statusCode])).toEqual([
      [secondEvent?.event.id, true, 200],
      [firstEvent?.event.id, true, 200],
    ])
    const order = stand.receiver.received.map((r) => (r.event.data.object as Stripe.Customer).id)
    expect(order).toEqual([second.id, first.id])
    await fetch(`${stand.emulator.url}/_emulator/webhooks/resume`, { method: 'POST' })
    const s = stand
    await waitFor(() => s.emulator.control.webhooksIdle(), 'the queue to drain')
    expect(stand.receiver.received).toHaveLength(2)
  })

  it('resends a delivered event on request', async () => {
    stand = await startStand()
    await stand.stripe.customers.create({})
    const s = stand
    const [event] = await waitFor(() => {
      const found = s.delivered('customer.created')
      return found.length > 0 ? found : undefined
    }, 'the first delivery')
    const response = await fetch(`${stand.emulator.url}/_emulator/events/${event?.id}/resend`, {
      method: 'POST',
    })
    expect(await response.json()).toMatchObject({ eventId: event?.id, ok: true, statusCode: 200 })
    expect(stand.delivered('customer.created').map((e) => e.id)).toEqual([event?.id, event?.id])
    const [entry] = await emulatorEvents(stand, 'customer.created')
    expect(entry?.delivery?.attempts.map((a) => a.trigger)).toEqual(['automatic', 'resend'])
  })

  it('lists events through the API, newest first, filtered by type', async () => {
    stand = await startStand()
    const customer = await stand.stripe.customers.create({ name: 'A' })
    await stand.stripe.customers.update(customer.id, { name: 'B' })
    const all = await stand.stripe.events.list()
    expect(all.data.map((e) => e.type)).toEqual(['customer.updated', 'customer.created'])
    const created = await stand.stripe.events.list({ type: 'customer.created' })
    expect(created.data).toHaveLength(1)
    const one = await stand.stripe.events.retrieve(created.data[0]?.id ?? '')
    expect(one.type).toBe('customer.created')
  })

  it('only logs events when no endpoint is configured', async () => {
    const { app, control } = createStripeEmulator({})
    try {
      await app.request('/v1/customers', {
        method: 'POST',
        headers: { Authorization: 'Bearer sk_test_x' },
      })
      const [entry] = control.events()
      expect(entry?.delivery?.status).toBe('no_endpoint')
      expect(entry?.event.pending_webhooks).toBe(0)
      expect(control.webhooksIdle()).toBe(true)
    } finally {
      control.close()
    }
  })
})
