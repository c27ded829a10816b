import { mkdirSync, rmSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, type Page } from '@playwright/test'
import { e2eStack } from './stack.ts'

/** The Stripe stand-in's test cards (emulators/src/stripe/README.md). */
export const cards = {
  succeeds: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  failsAtRenewal: '4000 0000 0000 0341',
} as const

/** Calls the stand-in's `/_emulator` API (JSON, no auth) and returns its answer. */
export async function stripeControl<T = unknown>(
  route: string,
  body?: Record<string, unknown>,
): Promise<T> {
  const response = await fetch(`${e2eStack.stripeUrl}/_emulator${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const text = await response.text()
  expect(response.ok, `/_emulator${route} answered ${response.status}: ${text}`).toBe(true)
  return JSON.parse(text) as T
}

/** The stand-in's emulated time, in Unix seconds. */
export async function stripeNow(): Promise<number> {
  return (await stripeControl<{ now: number }>('/clock')).now
}

/** Fills the stand-in's hosted checkout form with a test card and pays. */
export async function payOnCheckoutPage(page: Page, card: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Pay and subscribe' })).toBeVisible()
  await page.getByLabel('Card number').fill(card)
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 40')
  await page.getByLabel('CVC').fill('123')
  await page.getByLabel('Name on card').fill('Ada Lovelace')
  await page.getByRole('button', { name: 'Pay and subscribe' }).click()
}

const stateChanging = { 'x-tessera-csrf': '1', origin: e2eStack.appUrl }

interface SubscriptionAnswer {
  subscription: { currentPeriodEnd: string | null; cancelAt: string | null } | null
  entitlements: { plan: string; pastDue: boolean }
}

/** `GET /api/billing/subscription` as the page's signed-in user. */
export async function readSubscription(page: Page): Promise<SubscriptionAnswer> {
  const response = await page.request.get('/api/billing/subscription')
  expect(response.status(), await response.text()).toBe(200)
  return (await response.json()) as SubscriptionAnswer
}

/**
 * Subscribes the page's signed-in user without the checkout page: for journeys about what comes
 * after (the checkout page itself has its own journey). Waits until the webhook has been applied.
 */
export async function subscribeThroughApi(
  page: Page,
  plan: 'pro' | 'team',
  card: string = cards.succeeds,
): Promise<void> {
  const started = await page.request.post('/api/billing/checkout', {
    headers: stateChanging,
    data: { plan },
  })
  expect(started.status(), await started.text()).toBe(200)
  const { url } = (await started.json()) as { url: string }
  const sessionId = /\/checkout\/(cs_[^/?#]+)/.exec(url)?.[1]
  expect(sessionId, `a checkout session id in ${url}`).toBeTruthy()
  await stripeControl(`/checkout/${sessionId}/pay`, { card: card.replaceAll(' ', '') })
  await expect.poll(async () => (await readSubscription(page)).entitlements.plan).toBe(plan)
}

/** Longest a journey may hold the clock before another one may take it over. */
const STALE_LOCK_MS = 120_000

/**
 * Runs `journey` while no other billing journey runs. The stand-in has one clock for every
 * customer: a journey that moves it a month ahead would expire the checkout, or end the
 * cancelled plan, of a journey running beside it. Journeys that go through Stripe take this lock
 * (a directory: `mkdir` is atomic across the suite's worker processes).
 */
export async function withStripeClock<T>(journey: () => Promise<T>): Promise<T> {
  const lock = path.join(
    os.tmpdir(),
    `tessera-e2e-stripe-clock-${new URL(e2eStack.stripeUrl).port}.lock`,
  )
  const deadline = Date.now() + STALE_LOCK_MS + 30_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let age: number
    try {
      age = Date.now() - statSync(lock).mtimeMs
    } catch (error) {
      // Released between the two calls: try to take it again at once.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    // A journey that crashed without releasing it must not block the suite for good.
    if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true })
    if (Date.now() > deadline) throw new Error(`The Stripe clock lock ${lock} was never released.`)
    await new Promise((retry) => setTimeout(retry, 100))
  }
  try {
    return await journey()
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}
