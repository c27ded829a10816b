// Configuration of the Stripe stand-in when it runs on its own (`tsx src/stripe/node.ts`); parsed
// once with zod, failing at start-up with the names of the bad variables.
import { z } from 'zod'

const retrySchedule = z
  .string()
  .regex(/^\d+(,\d+)*$/, { error: 'a comma-separated list of milliseconds' })
  .transform((s) => s.split(',').map(Number))

export const stripeEnvSchema = z.object({
  STRIPE_PORT: z.coerce.number().int().min(0).max(65535).default(12111),
  STRIPE_HOST: z.string().min(1).default('127.0.0.1'),
  STRIPE_PUBLIC_URL: z.url().optional(),
  STRIPE_WEBHOOK_URL: z.url().default('http://127.0.0.1:8787/api/billing/webhook'),
  // A fixed local secret keeps `npm start` zero-config; the BFF reads the same default.
  STRIPE_WEBHOOK_SECRET: z.string().min(1).default('whsec_tessera_local_stand_in'),
  STRIPE_STATE_FILE: z.string().min(1).optional(),
  STRIPE_WEBHOOK_RETRY_SCHEDULE: retrySchedule.optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
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
