import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'

const origins = z.pipe(
  z.pipe(
    z.string(),
    z.transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    ),
  ),
  z.array(z.url()),
)

/** What the cdn uses when neither options nor environment say otherwise. */
export const cdnDefaults = {
  port: 8788,
  root: '.tessera/cdn',
  /** The BFF (which serves the built host in `npm start`) and the host's dev server. */
  allowedOrigins: [
    'http://localhost:8787',
    'http://127.0.0.1:8787',
    'http://localhost:5173',
    'http://127.0.0.1:5173',
  ],
} as const

const envSchema = z.object({
  CDN_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65535)), cdnDefaults.port),
  /** Folder of published builds; relative paths resolve against the repository root. */
  CDN_ROOT: z._default(z.string().check(z.minLength(1)), cdnDefaults.root),
  /** Comma-separated host origins that may load remotes from script (CORS). */
  CDN_ALLOWED_ORIGINS: z._default(origins, [...cdnDefaults.allowedOrigins]),
  /** `false` serves versioned paths with `no-cache`, for builds rewritten in place by a watcher. */
  CDN_IMMUTABLE: z.pipe(
    z._default(z.enum(['true', 'false']), 'true'),
    z.transform((value) => value === 'true'),
  ),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
})

export type CdnEnv = z.infer<typeof envSchema>

/** Reads the cdn's settings from the process environment (the only place that does). */
export function loadCdnEnv(): CdnEnv {
  return parseCdnEnv(process.env)
}

/** Parses the cdn's environment once, failing with the name of every bad variable. */
export function parseCdnEnv(source: Record<string, string | undefined>): CdnEnv {
  const parsed = envSchema.safeParse(source)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid cdn environment:\n  ${problems.join('\n  ')}`)
  }
  return parsed.data
}
