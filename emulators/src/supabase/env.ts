/** The Supabase stand-in's configuration when run on its own; the only place it reads `process.env`. */
import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'
import { defaultApiKeys, defaultEmailLinkTemplate } from './config.ts'

const port = z.coerce.number().check(z.int(), z.gte(0), z.lte(65_535))
const flag = z.pipe(
  z.enum(['true', 'false', '1', '0']),
  z.transform((value) => value === 'true' || value === '1'),
)

const envSchema = z.object({
  SUPABASE_EMULATOR_PORT: z._default(port, 54_321),
  SUPABASE_EMULATOR_MAILBOX_PORT: z._default(port, 54_324),
  SUPABASE_EMULATOR_HOST: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
  /** The URL clients reach the stand-in at, when not `http://<host>:<port>` (a proxy, a container). */
  SUPABASE_EMULATOR_PUBLIC_URL: z.optional(z.url()),
  SUPABASE_EMULATOR_SITE_URL: z._default(z.url(), 'http://localhost:8787'),
  SUPABASE_EMULATOR_REDIRECT_URLS: z.pipe(
    z._default(z.string(), ''),
    z.transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    ),
  ),
  SUPABASE_EMULATOR_ANON_KEY: z._default(z.string().check(z.minLength(1)), defaultApiKeys.anon),
  SUPABASE_EMULATOR_SERVICE_ROLE_KEY: z._default(
    z.string().check(z.minLength(1)),
    defaultApiKeys.serviceRole,
  ),
  // supabase-js refreshes 90 s before expiry on a 30 s tick: shorter lifetimes thrash.
  SUPABASE_EMULATOR_JWT_EXPIRY: z._default(z.coerce.number().check(z.int(), z.gte(180)), 3600),
  SUPABASE_EMULATOR_AUTOCONFIRM: z._default(flag, false),
  SUPABASE_EMULATOR_EMAIL_RATE_LIMIT_SECONDS: z._default(
    z.coerce.number().check(z.int(), z.gte(0)),
    30,
  ),
  SUPABASE_EMULATOR_EMAIL_LINK_TEMPLATE: z._default(
    z.string().check(z.minLength(1)),
    defaultEmailLinkTemplate,
  ),
  /** A PostgreSQL server; without it the stand-in opens PGlite in `PGLITE_DATA_DIR`. */
  DATABASE_URL: z.optional(z.url()),
  PGLITE_DATA_DIR: z.optional(z.string().check(z.minLength(1))),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
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
