/** The Supabase stand-in's configuration when run on its own; the only place it reads `process.env`. */
import { z } from 'zod'
import { defaultApiKeys, defaultEmailLinkTemplate } from './config.ts'

const port = z.coerce.number().int().min(0).max(65_535)
const flag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1')

const envSchema = z.object({
  SUPABASE_EMULATOR_PORT: port.default(54_321),
  SUPABASE_EMULATOR_MAILBOX_PORT: port.default(54_324),
  SUPABASE_EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  /** The URL clients reach the stand-in at, when not `http://<host>:<port>` (a proxy, a container). */
  SUPABASE_EMULATOR_PUBLIC_URL: z.url().optional(),
  SUPABASE_EMULATOR_SITE_URL: z.url().default('http://localhost:8787'),
  SUPABASE_EMULATOR_REDIRECT_URLS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    ),
  SUPABASE_EMULATOR_ANON_KEY: z.string().min(1).default(defaultApiKeys.anon),
  SUPABASE_EMULATOR_SERVICE_ROLE_KEY: z.string().min(1).default(defaultApiKeys.serviceRole),
  // supabase-js refreshes 90 s before expiry on a 30 s tick: shorter lifetimes thrash.
  SUPABASE_EMULATOR_JWT_EXPIRY: z.coerce.number().int().min(180).default(3600),
  SUPABASE_EMULATOR_AUTOCONFIRM: flag.default(false),
  SUPABASE_EMULATOR_EMAIL_RATE_LIMIT_SECONDS: z.coerce.number().int().min(0).default(30),
  SUPABASE_EMULATOR_EMAIL_LINK_TEMPLATE: z.string().min(1).default(defaultEmailLinkTemplate),
  /** A PostgreSQL server; without it the stand-in opens PGlite in `PGLITE_DATA_DIR`. */
  DATABASE_URL: z.url().optional(),
  PGLITE_DATA_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
})

export type SupabaseEmulatorEnv = z.output<typeof envSchema>

/** Parse the environment once; fails with the names of every bad variable. */
export function readSupabaseEmulatorEnv(
  source: Record<string, string | undefined> = process.env,
): SupabaseEmulatorEnv {
  const result = envSchema.safeParse(source)
  if (!result.success) {
    const names = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid environment for the Supabase stand-in:\n  ${names.join('\n  ')}`)
  }
  return result.data
}
