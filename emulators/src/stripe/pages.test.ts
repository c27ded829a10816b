import { Window, type Document } from 'happy-dom'
import type Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'
import { formatDate } from './pages/html.ts'
import {
  PRO,
  TEAM,
  payWithCard,
  startStand,
  submitForm,
  subscribe,
  waitFor,
  type Stand,
} from './test-support.ts'

let stand: Stand | null = null
afterEach(async () => {
  await stand?.close()
  stand = null
})

async function open(): Promise<Stand> {
  stand = await startStand()
  return stand
}

function parse(html: string): Document {
  const window = new Window()
  return new window.DOMParser().parseFromString(html, 'text/html')
}

/** The text of the <label for=…> of each visible input, keyed by the input's name. */
function labelsOf(doc: Document): Record<string, string> {
  const labels: Record<string, string> = {}
  for (const input of Array.from(doc.querySelectorAll('input:not([type="hidden"])'))) {
    const id = input.getAttribute('id') ?? ''
    const label = id ? doc.querySelector(`label[for="${id}"]`) : null
    labels[input.getAttribute('name') ?? '?'] = label?.textContent?.trim() ?? ''
  }
  return labels
}

async function newSession(
  s: Stand,
  extra: Partial<Stripe.Checkout.SessionCreateParams> = {},
): Promise<Stripe.Checkout.Session> {
  const [price] = (await s.stripe.prices.list({ lookup_keys: [PRO] })).data
  const customer = extra.customer_email
    ? undefined
    : await s.stripe.customers.create({ email: 'page@example.com' })
  return s.stripe.checkout.sessions.create({
    mode: 'subscription',
    ...(customer ? { customer: customer.id } : {}),
    line_items: [{ price: price?.id ?? '', quantity: 1 }],
    success_url: 'http://app.test/billing/return?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://app.test/billing',
    client_reference_id: 'user_42',
    metadata: { user_id: 'user_42' },
    subscription_data: { metadata: { user_id: 'user_42' } },
    ...extra,
  })
}

describe('hosted checkout page', () => {
  it('shows the plan and its price and labels every input', async () => {
    const s = await open()
    const session = await newSession(s)
    const response = await fetch(session.url ?? '')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/html')
    const doc = parse(await response.text())
    expect(doc.documentElement.getAttribute('lang')).toBe('en')
    expect(doc.querySelector('h1')?.textContent).toBe('Subscribe to Tessera Pro')
    expect(doc.body.textContent).toContain('$15.00')
    expect(doc.body.textContent).toContain('per month')
    expect(labelsOf(doc)).toEqual({
      number: 'Card number',
      expiry: 'Expiry (MM / YY)',
      cvc: 'CVC',
      name: 'Name on card',
    })
    expect(doc.querySelector('#number')?.getAttribute('autocomplete')).toBe('cc-number')
    const form = doc.querySelector('form')
    expect(form?.getAttribute('method')).toBe('post')
    expect(form?.getAttribute('action')).toBe(`/checkout/${session.id}`)
    expect(form?.querySelector('button[type="submit"]')?.textContent).toBe('Pay and subscribe')
    const cancel = Array.from(doc.querySelectorAll('a')).find((a) => a.textContent === 'Cancel')
    expect(cancel?.getAttribute('href')).toBe('http://app.test/billing')
  })

  it('subscribes with 4242, redirects to success_url and delivers the events in Stripe’s order', async () => {
    const s = await open()
    const session = await newSession(s)
    const response = await payWithCard(session.url ?? '', { number: '4242 4242 4242 4242' })
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe(
      `http://app.test/billing/return?session_id=${session.id}`,
    )

    const completed = await s.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['subscription'],
    })
    expect(completed).toMatchObject({
      status: 'complete',
      payment_status: 'paid',
      client_reference_id: 'user_42',
    })
    const subscription = completed.subscription as Stripe.Subscription
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'active',
      customer: completed.customer,
      metadata: { user_id: 'user_42' },
      cancel_at_period_end: false,
    })
    expect(subscription.items.data[0]?.price.lookup_key).toBe(PRO)
    expect(subscription.default_payment_method).toMatch(/^pm_/)
    const [invoice] = (await s.stripe.invoices.list({ subscription: subscription.id })).data
    expect(invoice).toMatchObject({
      status: 'paid',
      amount_paid: 1500,
      billing_reason: 'subscription_create',
    })

    const types = [
      'customer.subscription.created',
      'invoice.created',
      'invoice.paid',
      'invoice.payment_succeeded',
      'checkout.session.completed',
    ]
    await waitFor(
      () => s.delivered('checkout.session.completed').length === 1,
      'checkout.session.completed',
    )
    const arrived = s.receiver.received.map((r) => r.event.type).filter((t) => types.includes(t))
    expect(arrived).toEqual(types)
    expect(s.receiver.rejected).toEqual([])
    const [completedEvent] = s.delivered('checkout.session.completed')
    expect(completedEvent?.data.object).toMatchObject({
      id: session.id,
      subscription: subscription.id,
      metadata: { user_id: 'user_42' },
    })
  })

  it('asks for an email when the session has no customer, and creates the customer', async () => {
    const s = await open()
    const [price] = (await s.stripe.prices.list({ lookup_keys: [PRO] })).data
    const session = await s.stripe.checkout.sessions.create({
      mode: 'subscription',
      line_items: [{ price: price?.id ?? '' }],
      success_url: 'http://app.test/ok',
    })
    const doc = parse(await (await fetch(session.url ?? '')).text())
    expect(labelsOf(doc).email).toBe('Email')
    const paid = await payWithCard(session.url ?? '', {
      number: '4242424242424242',
      email: 'new@example.com',
    })
    expect(paid.status).toBe(303)
    const customers = await s.stripe.customers.list({ email: 'new@example.com' })
    expect(customers.data).toHaveLength(1)
    await waitFor(() => s.delivered('customer.created').length === 1, 'customer.created')
  })

  it('re-renders with “Your card was declined.” for 4000 0000 0000 0002 and creates nothing', async () => {
    const s = await open()
    const session = await newSession(s)
    const response = await payWithCard(session.url ?? '', {
      number: '4000 0000 0000 0002',
      name: 'Bo',
    })
    expect(response.status).toBe(402)
    const doc = parse(await response.text())
    expect(doc.querySelector('[role="alert"]')?.textContent).toBe('Your card was declined.')
    expect(doc.querySelector('#number')?.getAttribute('aria-invalid')).toBe('true')
    expect(doc.querySelector('#name')?.getAttribute('value')).toBe('Bo')
    const still = await s.stripe.checkout.sessions.retrieve(session.id)
    expect(still).toMatchObject({ status: 'open', subscription: null })
    expect(
      (await s.stripe.subscriptions.list({ customer: String(session.customer), status: 'all' }))
        .data,
    ).toEqual([])
    expect(s.emulator.control.events().map((e) => e.event.type)).not.toContain(
      'checkout.session.completed',
    )
  })

  it('says a session is complete once paid, and does not take a second payment', async () => {
    const s = await open()
    const session = await newSession(s)
    await payWithCard(session.url ?? '', { number: '4242424242424242' })
    const again = await payWithCard(session.url ?? '', { number: '4242424242424242' })
    expect(again.status).toBe(200)
    expect(await again.text()).toContain('This checkout is complete.')
    const subs = await s.stripe.subscriptions.list({
      customer: String(session.customer),
      status: 'all',
    })
    expect(subs.data).toHaveLength(1)
  })

  it('answers an unknown session with a 404 page', async () => {
    const s = await open()
    const response = await fetch(`${s.emulator.url}/checkout/cs_test_nope`)
    expect(response.status).toBe(404)
  })
})

describe('billing portal page', () => {
  async function portalFor(s: Stand, customer: string): Promise<string> {
    const portal = await s.stripe.billingPortal.sessions.create({
      customer,
      return_url: 'http://app.test/billing',
    })
    expect(portal).toMatchObject({
      object: 'billing_portal.session',
      customer,
      return_url: 'http://app.test/billing',
    })
    return portal.url
  }

  async function follow(response: Response): Promise<Document> {
    expect(response.status).toBe(303)
    const location = response.headers.get('location') ?? ''
    const base = new URL(response.url)
    return parse(await (await fetch(new URL(location, base))).text())
  }

  function buttonForm(doc: Document, name: string): string {
    const button = Array.from(doc.querySelectorAll('button')).find((b) => b.textContent === name)
    const action = button?.closest('form')?.getAttribute('action')
    if (!action) throw new Error(`no button “${name}”`)
    return action
  }

  it('shows the plan, its status and renewal date, and a link back', async () => {
    const s = await open()
    const { customer, subscription } = await subscribe(s)
    const url = await portalFor(s, customer.id)
    const doc = parse(await (await fetch(url)).text())
    const text = doc.body.textContent ?? ''
    expect(text).toContain('Tessera Pro')
    expect(text).toContain('Active')
    expect(text).toContain(
      `Renews on${formatDate(subscription.items.data[0]?.current_period_end ?? 0)}`,
    )
    expect(text).toContain('Visa ending in 4242')
    const back = Array.from(doc.querySelectorAll('a')).find(
      (a) => a.textContent === 'Return to Tessera',
    )
    expect(back?.getAttribute('href')).toBe('http://app.test/billing')
    expect(labelsOf(doc)).toEqual({
      number: 'Card number',
      expiry: 'Expiry (MM / YY)',
      cvc: 'CVC',
      name: 'Name on card',
    })
  })

  it('cancels at period end, resumes, and switches plan, each with a webhook', async () => {
    const s = await open()
    const { customer, subscription } = await subscribe(s)
    const url = await portalFor(s, customer.id)
    const origin = new URL(url).origin
    const end = subscription.items.data[0]?.current_period_end ?? 0

    let doc = parse(await (await fetch(url)).text())
    doc = await follow(await submitForm(origin + buttonForm(doc, 'Cancel plan'), {}))
    expect(doc.querySelector('[role="status"]')?.textContent).toBe(
      `Your plan will be canceled on ${formatDate(end)}.`,
    )
    expect(doc.body.textContent).toContain(`Cancels on${formatDate(end)}`)
    expect(await s.stripe.subscriptions.retrieve(subscription.id)).toMatchObject({
      cancel_at_period_end: true,
    })

    doc = await follow(await submitForm(origin + buttonForm(doc, 'Resume plan'), {}))
    expect(await s.stripe.subscriptions.retrieve(subscription.id)).toMatchObject({
      cancel_at_period_end: false,
    })

    const switchButton = Array.from(doc.querySelectorAll('button')).find((b) =>
      b.textContent?.startsWith('Switch to Tessera Team'),
    )
    const form = switchButton?.closest('form')
    const price = form?.querySelector('input[name="price"]')?.getAttribute('value') ?? ''
    doc = await follow(await submitForm(origin + (form?.getAttribute('action') ?? ''), { price }))
    expect(doc.querySelector('[role="status"]')?.textContent).toBe('Your plan is now Tessera Team.')
    const changed = await s.stripe.subscriptions.retrieve(subscription.id)
    expect(changed.items.data[0]?.price.lookup_key).toBe(TEAM)

    const updates = await waitFor(() => {
      const found = s.delivered('customer.subscription.updated')
      return found.length >= 3 ? found : undefined
    }, 'three subscription updates')
    expect(updates.map((e) => Object.keys(e.data.previous_attributes ?? {}).sort())).toEqual([
      ['cancel_at', 'cancel_at_period_end', 'canceled_at', 'cancellation_details'],
      ['cancel_at', 'cancel_at_period_end', 'canceled_at', 'cancellation_details'],
      ['items'],
    ])
    expect(updates.every((e) => e.request?.id === null)).toBe(true)
  })

  it('shows a past_due warning and clears it when a working card is saved', async () => {
    const s = await open()
    const { customer, subscription } = await subscribe(s, { card: '4000000000000341' })
    s.emulator.control.advanceClock(
      (subscription.items.data[0]?.current_period_end ?? 0) - s.emulator.control.now() + 1,
    )
    const url = await portalFor(s, customer.id)
    let doc = parse(await (await fetch(url)).text())
    expect(doc.body.textContent).toContain('Past due')
    expect(doc.querySelector('[role="alert"]')?.textContent).toContain('Your last payment failed')

    const declined = await payWithCard(`${url}/payment-method`, { number: '4000000000000002' })
    expect(declined.status).toBe(402)
    expect(parse(await declined.text()).querySelector('#card-error')?.textContent).toBe(
      'Your card was declined.',
    )

    doc = await follow(await payWithCard(`${url}/payment-method`, { number: '4242424242424242' }))
    expect(doc.querySelector('[role="status"]')?.textContent).toBe('Your card was updated.')
    const fixed = await s.stripe.subscriptions.retrieve(subscription.id)
    expect(fixed.status).toBe('active')
    const invoices = await s.stripe.invoices.list({ subscription: subscription.id })
    expect(invoices.data.every((i) => i.status === 'paid')).toBe(true)
    await waitFor(() => s.delivered('invoice.paid').length === 2, 'the retried invoice to be paid')
  })

  it('answers an unknown portal session with a 404 page', async () => {
    const s = await open()
    expect((await fetch(`${s.emulator.url}/portal/bps_nope`)).status).toBe(404)
  })
})
