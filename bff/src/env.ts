import { z } from 'zod'

export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

/**
 * The repository root, two folders above this file. Computed with URL rather than node:path so
 * the module stays Web-standard (app.ts imports its types, and the host type-checks app.ts).
 */
const defaultRootDir = decodeURIComponent(new URL('../../', import.meta.url).pathname)

const port = z.coerce.number().int().min(0).max(65535)
const positiveInt = z.coerce.number().int().positive()

const origin = z.url({ protocol: /^https?$/ }).transform((value) => new URL(value).origin)

const originList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  )
  .pipe(z.array(origin).min(1, 'must list at least one origin'))

const envSchema = z.object({
  PORT: port.default(8787),
  HOST_NAME: z.string().min(1).default('127.0.0.1'),
  PUBLIC_ORIGIN: origin.default('http://localhost:8787'),
  ALLOWED_ORIGINS: originList.optional(),
  REGISTRY_FILE: z.string().min(1).default('.tessera/registry.json'),
  HOST_DIST: z.string().min(1).default('host/dist'),
  LOG_LEVEL: z.enum(logLevels).default('info'),
  BODY_LIMIT_BYTES: positiveInt.default(65536),
  TELEMETRY_BODY_LIMIT_BYTES: positiveInt.default(8192),
  TELEMETRY_RATE_LIMIT: positiveInt.default(60),
  SSE_HEARTBEAT_MS: positiveInt.default(15000),
})

export type Env = Omit<z.output<typeof envSchema>, 'ALLOWED_ORIGINS'> & {
  /** Origins allowed to call /api with credentials and to send state-changing requests. */
  ALLOWED_ORIGINS: string[]
  /** Absolute path of the registry file. */
  REGISTRY_FILE: string
  /** Absolute path of the built host. */
  HOST_DIST: string
}

/** Thrown by `loadEnv` with every bad key, so start-up fails once with the whole list. */
export class EnvError extends Error {
  readonly keys: string[]

  constructor(issues: { key: string; message: string }[]) {
    super(
      `Invalid environment: ${issues.map((issue) => `${issue.key} (${issue.message})`).join(', ')}`,
    )
    this.name = 'EnvError'
    this.keys = [...new Set(issues.map((issue) => issue.key))]
  }
}

/** Parses the BFF's configuration from an environment-like record; throws `EnvError`. */
export function loadEnv(
  source: Record<string, string | undefined>,
  options: { rootDir?: string } = {},
): Env {
  // An empty variable (`PORT=`) means "use the default", as shells make unsetting awkward.
  const present = Object.fromEntries(
    Object.keys(envSchema.shape).map((key) => [key, source[key] === '' ? undefined : source[key]]),
  )
  const parsed = envSchema.safeParse(present)
  if (!parsed.success) {
    throw new EnvError(
      parsed.error.issues.map((issue) => ({
        key: String(issue.path[0] ?? '(root)'),
        message: issue.message,
      })),
    )
  }
  const rootDir = options.rootDir ?? defaultRootDir
  const env = parsed.data
  return {
    ...env,
    ALLOWED_ORIGINS: [
      ...new Set(env.ALLOWED_ORIGINS ?? [env.PUBLIC_ORIGIN, 'http://localhost:5173']),
    ],
    REGISTRY_FILE: resolveFromRoot(rootDir, env.REGISTRY_FILE),
    HOST_DIST: resolveFromRoot(rootDir, env.HOST_DIST),
  }
}

/** Resolves a path against the repository root (not the working directory); absolute stays. */
export function resolveFromRoot(rootDir: string, path: string): string {
  if (path.startsWith('/')) return path
  const root = rootDir.endsWith('/') ? rootDir : `${rootDir}/`
  const rootUrl = new URL(`file://${root.split('/').map(encodeURIComponent).join('/')}`)
  const resolved = new URL(path.split('/').map(encodeURIComponent).join('/'), rootUrl)
  const absolute = decodeURIComponent(resolved.pathname)
  return absolute.length > 1 && absolute.endsWith('/') ? absolute.slice(0, -1) : absolute
}
