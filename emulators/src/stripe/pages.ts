// The Stripe-hosted pages a person visits: Checkout (`session.url`) and the Billing Portal
// (`portal.url`). Plain server-rendered HTML forms, so they work without JavaScript and can be
// driven by Playwright through labels and roles. Each page's routes live in `pages/`.
import { Hono } from 'hono'
import { registerCheckoutPage } from './pages/checkout.ts'
import type { PagesEnv, PagesOptions } from './pages/options.ts'
import { registerPortalPage } from './pages/portal.ts'

export function createPages(options: PagesOptions): Hono<PagesEnv> {
  const pages = new Hono<PagesEnv>()
  registerCheckoutPage(pages, options)
  registerPortalPage(pages, options)
  return pages
}
