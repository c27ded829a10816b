import { errorBodySchema, planList, plansResponseSchema } from '@tessera/contracts'
import type { CheckoutStatus, Entitlements, SubscriptionResponse } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonOf } from '../../testing/identity.ts'
import { startBillingTestApp } from '../../testing/billing.ts'
import type { BillingTestApp } from '../../testing/billing.ts'
import { csrfHeaders, waitFor } from '../../testing/app.ts'

let t: BillingTestApp
let counter = 0
const email = (name: string) => `${name}-${(counter += 1)}@example.com`

beforeAll(async () => {
  t = await startBillingTestApp()
})

afterAll(async () => {
  await t.close()
})

async function codeOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error
}

async function meEntitlements(browser: { get(path: string): Promise<Response> }) {
  return (await jsonOf<{ entitlements: Entitlements }>(await browser.get('/api/me'))).entitlements
}

describe('GET /api/billing/plans', () => {
  it('lists the catalogue, with no current plan for a visitor', async () => {
    const response = await t.harness.request('/api/billing/plans')
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const body = plansResponseSchema.parse(await response.json())
    expect(body.current).toBeNull()
    expect(body.plans.map((plan) => [plan.id, plan.monthlyPrice])).toEqual(
      planList.map((plan) => [plan.id, plan.monthlyPrice]),
    )
  })

  it('marks the free plan as current for a new user', async () => {
    const { browser } = await t.user(email('plans'))
    const body = plansResponseSchema.parse(await (await browser.get('/api/billing/plans')).json())
    expect(body.current).toBe('free')
  })
})

describe('GET /api/billing/subscription', () => {
  it('asks a visitor to sign in', async () => {
    const response = await t.harness.request('/api/billing/subscription')
    expect(response.status).toBe(401)
    expect((await codeOf(response)).code).toBe('unauthenticated')
  })

  it('shows no subscription and the free entitlements for a new user', async () => {
    const { browser } = await t.user(email('free'))
    const body = await t.subscriptionOf(browser)
    expect(body.subscription).toBeNull()
    expect(body.entitlements).toMatchObject({ plan: 'free', status: null, pastDue: false })
  })
})

describe('POST /api/billing/checkout', () => {
  it('refuses a plan that is not for sale, a missing plan and a body that is not JSON', async () => {
    const { browser } = await t.user(email('invalid'))
    for (const body of [{ plan: 'free' }, { plan: 'gold' }, {}, { plan: 'pro', extra: 1 }]) {
      const response = await browser.send('POST', '/api/billing/checkout', body)
      expect(response.status, JSON.stringify(body)).toBe(422)
      expect((await codeOf(response)).code).toBe('validation_failed')
    }
    const text = await browser.request('/api/billing/checkout', {
      method: 'POST',
      headers: { ...csrfHeaders, 'content-type': 'text/plain' },
      body: 'plan=pro',
    })
    expect(text.status).toBe(415)
  })

  it('keeps the CSRF check: a checkout without the header is refused', async () => {
    const { browser } = await t.user(email('csrf'))
    const response = await browser.request('/api/billing/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro' }),
    })
    expect(response.status).toBe(403)
    expect((await codeOf(response)).code).toBe('csrf_failed')
  })

  it('asks a visitor to sign in', async () => {
    const response = await t.harness.request('/api/billing/checkout', {
      method: 'POST',
      headers: csrfHeaders,
      body: JSON.stringify({ plan: 'pro' }),
    })
    expect(response.status).toBe(401)
  })

  it('sends the browser to Stripe with return addresses on the public origin', async () => {
    const { browser, userId } = await t.user(email('urls'))
    const workspaceId = await t.createTeam(browser)
    const response = await browser.send('POST', '/api/billing/checkout', { plan: 'team' })
    expect(response.status).toBe(200)
    const { url } = await jsonOf<{ url: string }>(response)
    expect(url).toMatch(/^http:\/\/stripe\.test\/checkout\/cs_/)
    const session = await t.stripe.checkout.sessions.retrieve(url.split('/').pop() ?? '', {
      expand: ['line_items'],
    })
    expect(session.success_url).toBe(
      'http://app.tessera.test/billing/return?session_id={CHECKOUT_SESSION_ID}',
    )
    expect(session.cancel_url).toBe('http://app.tessera.test/billing/plans?checkout=cancelled')
    expect(session.client_reference_id).toBe(userId)
    expect(session.line_items?.data[0]?.price?.lookup_key).toBe('tessera_team_monthly')
    // A team of one pays for the plan's minimum of two seats; the subscription names the team.
    expect(session.line_items?.data[0]?.quantity).toBe(2)
    expect(session.metadata).toMatchObject({ workspace_id: workspaceId, plan: 'team' })
    const customer = await t.stripe.customers.retrieve(String(session.customer))
    expect(customer).toMatchObject({ metadata: { user_id: userId } })
  })

  it('makes one Stripe customer and one session for two parallel clicks', async () => {
    const address = email('double')
    const { browser, userId } = await t.user(address)
    const answers = await Promise.all([
      browser.send('POST', '/api/billing/checkout', { plan: 'pro' }),
      browser.send('POST', '/api/billing/checkout', { plan: 'pro' }),
    ])
    expect(answers.map((answer) => answer.status)).toEqual([200, 200])
    const [first, second] = await Promise.all(answers.map((a) => jsonOf<{ url: string }>(a)))
    expect(second?.url).toBe(first?.url)
    const customers = await t.stripe.customers.list({ email: address, limit: 10 })
    expect(customers.data.map((customer) => customer.metadata.user_id)).toEqual([userId])
    const sessions = await t.stripe.checkout.sessions.list({
      customer: customers.data[0]?.id ?? '',
      limit: 10,
    })
    expect(sessions.data).toHaveLength(1)
    // A third click later, for the other plan (in a team), still uses the same customer.
    const workspaceId = await t.createTeam(browser)
    const other = await browser.send('POST', '/api/billing/checkout', { plan: 'team', workspaceId })
    expect(other.status).toBe(200)
    expect((await t.stripe.customers.list({ email: address, limit: 10 })).data).toHaveLength(1)
  })

  it('refuses a second subscription while a paid plan is granted', async () => {
    const { browser } = await t.user(email('twice'))
    await t.subscribe(browser, 'pro')
    await t.webhooksSettled()
    const response = await browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    expect(response.status).toBe(409)
    expect((await codeOf(response)).code).toBe('already_subscribed')
  })

  it('answers upstream_timeout within seconds when Stripe hangs', async () => {
    const { browser } = await t.user(email('slow'))
    t.emulator.control.injectFault({ count: 2, path: '/v1/checkout/sessions', delayMs: 10_000 })
    const started = Date.now()
    const response = await browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    t.emulator.control.clearFaults()
    expect(response.status).toBe(504)
    expect((await codeOf(response)).code).toBe('upstream_timeout')
    expect(Date.now() - started).toBeLessThan(9_000)
  })

  it('answers upstream_unavailable when Stripe keeps failing', async () => {
    const { browser } = await t.user(email('down'))
    t.emulator.control.injectFault({ count: 2, path: '/v1/checkout/sessions', status: 503 })
    const response = await browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    t.emulator.control.clearFaults()
    expect(response.status).toBe(503)
    expect((await codeOf(response)).code).toBe('upstream_unavailable')
    // The same click once Stripe is back works, with the customer made the first time.
    const again = await browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    expect(again.status).toBe(200)
  })
})

describe('GET /api/billing/checkout/:sessionId', () => {
  it('confirms a paid checkout only once the webhook is applied, never from the redirect', async () => {
    const { browser } = await t.user(email('return'))
    const started = await browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    const sessionId = (await jsonOf<{ url: string }>(started)).url.split('/').pop() ?? ''
    const status = async () =>
      jsonOf<CheckoutStatus>(await browser.get(`/api/billing/checkout/${sessionId}`))

    expect(await status()).toMatchObject({ status: 'open', confirmed: false, plan: 'pro' })
    t.emulator.control.pauseWebhooks()
    const paid = t.emulator.control.payCheckoutSession(sessionId, {
      number: '4242424242424242',
      expiry: '12 / 40',
      cvc: '123',
      name: 'Ada',
    })
    expect(paid.ok).toBe(true)
    // Paid at Stripe, the browser back on the return page, but no webhook yet: still free.
    const waiting = await status()
    expect(waiting).toMatchObject({ status: 'complete', confirmed: false })
    expect(waiting.entitlements.plan).toBe('free')
    expect((await meEntitlements(browser)).plan).toBe('free')

    t.emulator.control.resumeWebhooks()
    const confirmed = await waitFor(async () => {
      const answer = await status()
      return answer.confirmed ? answer : undefined
    })
    expect(confirmed.entitlements).toMatchObject({ plan: 'pro', status: 'active' })
  })

  it('leaves a declined card on the free plan with the session still open', async () => {
    const { browser } = await t.user(email('declined'))
    const started = await browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    const sessionId = (await jsonOf<{ url: string }>(started)).url.split('/').pop() ?? ''
    const paid = t.emulator.control.payCheckoutSession(sessionId, {
      number: '4000000000000002',
      expiry: '12 / 40',
      cvc: '123',
      name: 'Ada',
    })
    expect(paid.ok).toBe(false)
    await t.webhooksSettled()
    const answer = await jsonOf<CheckoutStatus>(
      await browser.get(`/api/billing/checkout/${sessionId}`),
    )
    expect(answer).toMatchObject({ status: 'open', confirmed: false })
    expect(answer.entitlements.plan).toBe('free')
  })

  it('does not show one user another user’s checkout', async () => {
    const owner = await t.user(email('owner'))
    const other = await t.user(email('other'))
    const started = await owner.browser.send('POST', '/api/billing/checkout', { plan: 'pro' })
    const sessionId = (await jsonOf<{ url: string }>(started)).url.split('/').pop() ?? ''
    const response = await other.browser.get(`/api/billing/checkout/${sessionId}`)
    expect(response.status).toBe(404)
    const unknown = await other.browser.get('/api/billing/checkout/cs_test_doesnotexist')
    expect(unknown.status).toBe(404)
  })

  it('refuses a session id that is not one', async () => {
    const { browser } = await t.user(email('badid'))
    const response = await browser.get('/api/billing/checkout/not-a-session')
    expect(response.status).toBe(422)
    expect((await codeOf(response)).code).toBe('validation_failed')
  })
})

describe('POST /api/billing/portal', () => {
  it('says a user without a billing account has nothing to manage yet', async () => {
    const { browser } = await t.user(email('noportal'))
    const response = await browser.send('POST', '/api/billing/portal')
    expect(response.status).toBe(404)
  })

  it('opens the portal of a subscriber, returning to /billing', async () => {
    const { browser } = await t.user(email('portal'))
    await t.subscribe(browser)
    const response = await browser.send('POST', '/api/billing/portal')
    expect(response.status).toBe(200)
    const { url } = await jsonOf<{ url: string }>(response)
    expect(url).toMatch(/^http:\/\/stripe\.test\/portal\//)
    const portal = t.emulator.control.snapshot().portalSessions[url.split('/').pop() ?? '']
    expect(portal?.return_url).toBe('http://app.tessera.test/billing')
  })

  it('takes no input', async () => {
    const { browser } = await t.user(email('portalbody'))
    const response = await browser.send('POST', '/api/billing/portal', { customer: 'cus_x' })
    expect(response.status).toBe(422)
  })
})

describe('live state', () => {
  it('shows a webhook-applied plan on /api/me at once, and pushes it to open tabs', async () => {
    const { browser, userId } = await t.user(email('live'))
    // A read now is kept for a moment: the webhook below must replace it, not wait it out.
    expect((await meEntitlements(browser)).plan).toBe('free')
    const stream = await browser.events()
    await t.subscribe(browser, 'team')
    const ofType = (type: string) => (frame: { data: string }) =>
      (JSON.parse(frame.data) as { type?: string }).type === type
    const entitlementsFrame = await stream.next(ofType('entitlements'))
    expect(JSON.parse(entitlementsFrame.data)).toMatchObject({
      data: { entitlements: { plan: 'team', status: 'active' } },
    })
    const subscriptionFrame = await stream.next(ofType('billing.subscription'))
    const subscription = JSON.parse(subscriptionFrame.data) as { data: SubscriptionResponse }
    expect(subscription.data.subscription).toMatchObject({ plan: 'team', status: 'active' })
    await t.webhooksSettled()
    expect((await meEntitlements(browser)).plan).toBe('team')
    const published = t.harness.published.filter(
      (message) => message.topic === `user:${userId}` && message.event.type === 'entitlements',
    )
    expect(published).toHaveLength(1)
    await stream.cancel()
  })
})
