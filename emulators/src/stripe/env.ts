// Configuration of the Stripe stand-in when it runs on its own (`tsx src/stripe/node.ts`); parsed
// once with zod, failing at start-up with the names of the bad variables.
import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'

const retrySchedule = z.pipe(
  z.string().check(z.regex(/^\d+(,\d+)*$/, { error: 'a comma-separated list of milliseconds' })),
  z.transform((s) => s.split(',').map(Number)),
)

export const stripeEnvSchema = z.object({
  STRIPE_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 12111),
  STRIPE_HOST: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
  STRIPE_PUBLIC_URL: z.optional(z.url()),
  STRIPE_WEBHOOK_URL: z._default(z.url(), 'http://127.0.0.1:8787/api/billing/webhook'),
  // A fixed local secret keeps `npm start` zero-config; the BFF reads the same default.
  STRIPE_WEBHOOK_SECRET: z._default(
    z.string().check(z.minLength(1)),
    'whsec_tessera_local_stand_in',
  ),
  STRIPE_STATE_FILE: z.optional(z.string().check(z.minLength(1))),
  STRIPE_WEBHOOK_RETRY_SCHEDULE: z.optional(retrySchedule),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
})

export type StripeEnv = z.infer<typeof stripeEnvSchema>

export function parseStripeEnv(source: Record<string, string | undefined>): StripeEnv {
  const result = stripeEnvSchema.safeParse(source)
  if (!result.success) {
    const bad = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')
    throw new Error(`Invalid Stripe stand-in configuration: ${bad}`)
  }
  return result.data
}
