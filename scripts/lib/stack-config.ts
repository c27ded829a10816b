import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'

/**
 * The settings of the local stack scripts (`npm start`, `npm run dev`, the e2e and bench
 * harnesses). Parsed once from the environment; every deployable has its own env.ts besides.
 */
const schema = z.object({
  PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 8787),
  CDN_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 8788),
  DEV_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 5173),
  SUPABASE_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 54321),
  MAILBOX_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 54324),
  STRIPE_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 12111),
  OPENAI_EMULATOR_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), 8790),
  /** The OpenAI stand-in's streaming pace: readable, like a real model. */
  OPENAI_EMULATOR_TOKENS_PER_SECOND: z._default(z.coerce.number().check(z.positive()), 40),
  /** A PostgreSQL server instead of the embedded PGlite. */
  DATABASE_URL: z.optional(z.url({ protocol: /^postgres(ql)?$/ })),
  TESSERA_DATA_DIR: z._default(z.string().check(z.minLength(1)), '.tessera'),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
})

export type StackConfig = z.infer<typeof schema>

export function readStackConfig(
  source: Record<string, string | undefined> = process.env,
): StackConfig {
  const parsed = schema.safeParse(source)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join(', ')
    throw new Error(`Invalid stack environment: ${problems}`)
  }
  return parsed.data
}

/** The settings every command that starts the local stack passes on to `startStack`. */
export function stackOptions(config: StackConfig) {
  return {
    bffPort: config.PORT,
    cdnPort: config.CDN_PORT,
    supabasePort: config.SUPABASE_PORT,
    mailboxPort: config.MAILBOX_PORT,
    stripePort: config.STRIPE_PORT,
    openaiPort: config.OPENAI_EMULATOR_PORT,
    openaiTokensPerSecond: config.OPENAI_EMULATOR_TOKENS_PER_SECOND,
    databaseUrl: config.DATABASE_URL,
    dataDir: config.TESSERA_DATA_DIR,
    logLevel: config.LOG_LEVEL,
  }
}
