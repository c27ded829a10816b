// What the hosted pages are built from, shared by the Checkout and portal routes.
import type { StripeEngine } from '../engine.ts'

export interface PagesOptions {
  engine: StripeEngine
  businessName: string
}

export type PagesEnv = { Variables: { requestId: string } }
