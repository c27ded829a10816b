import { z } from 'zod'

/** One paid plan's Stripe price, found by `lookupKey` (the free plan has no price). */
export const seedPriceSchema = z.object({
  lookupKey: z.string().min(1),
  productName: z.string().min(1),
  unitAmount: z.number().int().nonnegative(),
  currency: z.string().length(3),
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
