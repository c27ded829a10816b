import { z } from 'zod/mini'

/** One paid plan's Stripe price, found by `lookupKey` (the free plan has no price). */
export const seedPriceSchema = z.object({
  lookupKey: z.string().check(z.minLength(1)),
  productName: z.string().check(z.minLength(1)),
  unitAmount: z.int().check(z.nonnegative()),
  currency: z.string().check(z.length(3)),
  interval: z.enum(['day', 'week', 'month', 'year']),
})

export type SeedPrice = z.infer<typeof seedPriceSchema>

// Used when no catalogue is passed in; the plan catalogue in contracts is the source of truth and
// the stack passes its prices here once it exists.
export const defaultSeed: readonly SeedPrice[] = [
  {
    lookupKey: 'tessera_pro_monthly',
    productName: 'Tessera Pro',
    unitAmount: 1500,
    currency: 'usd',
    interval: 'month',
  },
  {
    lookupKey: 'tessera_team_monthly',
    productName: 'Tessera Team',
    unitAmount: 1500,
    currency: 'usd',
    interval: 'month',
  },
]
