import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'
import { parseAddressRanges } from './client-address.ts'

export const logLevels = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

/**
 * The repository root, two folders above this file. Computed with URL rather than node:path so
 * the module stays Web-standard (app.ts imports its types, and the host type-checks app.ts).
 */
const defaultRootDir = decodeURIComponent(new URL('../../../', import.meta.url).pathname)

const port = z.coerce.number().check(z.int(), z.gte(0), z.lte(65535))
const positiveInt = z.coerce.number().check(z.int(), z.positive())

const origin = z.pipe(
  z.url({ protocol: /^https?$/ }),
  z.transform((value) => new URL(value).origin),
)
const httpUrl = z.pipe(
  z.url({ protocol: /^https?$/ }),
  z.transform((value) => value.replace(/\/+$/, '')),
)
/** `127.0.0.1/32,::1,10.0.0.0/8`: addresses and CIDR ranges, IPv4 and IPv6. */
const addressRangeList = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    const { ranges, invalid } = parseAddressRanges(value)
    for (const entry of invalid) {
      ctx.issues.push({
        code: 'custom',
        input: value,
        message: `"${entry}" is not an IP address or CIDR range (like 10.0.0.0/8, 127.0.0.1 or ::1)`,
      })
    }
    return ranges
  }),
)
const flag = z.pipe(
  z.enum(['true', 'false', '1', '0']),
  z.transform((value) => value === 'true' || value === '1'),
)

/** An origin, or an origin and a folder: `https://cdn.example/remotes` (no query, no fragment). */
const storageLocation = z.pipe(
  z.url({ protocol: /^https?$/ }).check(
    z.refine((value) => {
      const url = new URL(value)
      return url.search === '' && url.hash === ''
    }, 'must be an origin or a folder URL, without ? or #'),
  ),
  z.transform((value) => {
    const url = new URL(value)
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
  }),
)
/** A comma-separated setting as its items, trimmed, the empty ones left out. */
const commaSeparated = z.pipe(
  z.string(),
  z.transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  ),
)

const storageLocationList = z.pipe(
  commaSeparated,
  z.array(storageLocation).check(z.minLength(1, 'must list at least one origin')),
)

const originList = z.pipe(
  commaSeparated,
  z.array(origin).check(z.minLength(1, 'must list at least one origin')),
)

/**
 * Where per-browser overrides may load a remote from: `https://host[:port]` (`*.` for any
 * subdomain) or loopback over http, `:*` for any port; `none` allows no override at all.
 */
const overrideOriginList = z.pipe(
  z.pipe(
    z.string(),
    z.transform((value) =>
      value
        .split(',')
        .map((item) => item.trim().toLowerCase().replace(/\/+$/, ''))
        .filter((item) => item !== ''),
    ),
  ),
  z.union([
    z.pipe(
      z.tuple([z.literal('none')]),
      z.transform((): string[] => []),
    ),
    z
      .array(
        z
          .string()
          .check(
            z.regex(
              /^(?:https:\/\/(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*|http:\/\/(?:localhost|127\.0\.0\.1|\[::1\]))(?::(?:\d{1,5}|\*))?$/,
              'must be "none" or origins like https://preview.example.com, https://*.example.com or http://localhost:* (http only on loopback)',
            ),
          ),
      )
      .check(z.minLength(1, 'must list at least one origin, or say none')),
  ]),
)

/**
 * Each plugin's upstream, `notes=http://127.0.0.1:9101,other=https://other.internal/api`: the
 * only places `/api/plugins/<name>/*` is ever forwarded to (an origin, or an origin and a folder).
 */
const pluginUpstreamList = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    const upstreams: Record<string, string> = {}
    const entries = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '')
    for (const entry of entries) {
      const split = entry.indexOf('=')
      const name = entry.slice(0, split).trim()
      const location = entry.slice(split + 1).trim()
      const url = URL.canParse(location) ? new URL(location) : null
      if (split <= 0 || !/^[a-z][a-z0-9-]{1,31}$/.test(name)) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `"${entry}" must be <plugin name>=<http(s) origin>, the name as its remote's (like notes=http://127.0.0.1:9101)`,
        })
      } else if (
        url === null ||
        !/^https?:$/.test(url.protocol) ||
        url.username !== '' ||
        url.password !== '' ||
        url.search !== '' ||
        url.hash !== ''
      ) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: `"${entry}": ${name}'s upstream must be an http(s) origin or folder URL, without credentials, ? or #`,
        })
      } else if (name in upstreams) {
        ctx.issues.push({ code: 'custom', input: value, message: `"${name}" is mapped twice` })
      } else {
        upstreams[name] = `${url.origin}${url.pathname.replace(/\/+$/, '')}`
      }
    }
    return upstreams
  }),
)

/**
 * The local Supabase stand-in's keys: the Supabase CLI's well-known local keys, which anyone who
 * ran `supabase start` recognises. They are not secrets, and they are refused anywhere but locally.
 */
export const localSupabaseKeys = {
  anon: 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH',
  serviceRole: 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz',
} as const

/** Loopback on any port: where a developer's own dev server or preview build runs. */
const loopbackOverrideOrigins = ['http://localhost:*', 'http://127.0.0.1:*', 'http://[::1]:*']

const envSchema = z.object({
  PORT: z._default(port, 8787),
  HOST_NAME: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
  PUBLIC_ORIGIN: z._default(origin, 'http://localhost:8787'),
  ALLOWED_ORIGINS: z.optional(originList),
  /**
   * The proxies in front of the BFF (load balancer, ingress): only from these peers is the
   * client's address read from X-Forwarded-For. Empty: the TCP peer is the client.
   */
  TRUSTED_PROXIES: z._default(addressRangeList, []),
  /**
   * Every connection starts with a PROXY protocol header (v1 or v2: HAProxy's `send-proxy`),
   * whose source address is the peer. Only where nothing but the proxy can reach the BFF.
   */
  PROXY_PROTOCOL: z._default(flag, false),
  HOST_DIST: z._default(z.string().check(z.minLength(1)), 'host/dist'),
  LOG_LEVEL: z._default(z.enum(logLevels), 'info'),
  BODY_LIMIT_BYTES: z._default(positiveInt, 65536),
  TELEMETRY_BODY_LIMIT_BYTES: z._default(positiveInt, 8192),
  TELEMETRY_RATE_LIMIT: z._default(positiveInt, 60),
  /** Reads of public share links (the page and its JSON) per client per minute. */
  SHARED_LINK_RATE_LIMIT: z._default(positiveInt, 120),
  /**
   * How long a check of a limit shared by the replicas (rate limits, the sign-in throttle, canary
   * counts) may wait for the database before this process counts on its own instead (ms).
   */
  SHARED_LIMIT_TIMEOUT_MS: z._default(positiveInt, 200),
  /**
   * `false` counts every limit in this process alone, as before decision 019: for one replica
   * only (N replicas would each allow the whole limit). The benchmarks compare the two.
   */
  SHARED_LIMITS: z._default(flag, true),
  SSE_HEARTBEAT_MS: z._default(positiveInt, 15000),
  /**
   * How long live events are kept for tabs that reconnect (Last-Event-ID); a tab that was away
   * longer is told to re-read instead (docs/decisions/018).
   */
  LIVE_EVENTS_RETENTION_SECONDS: z._default(positiveInt, 600),
  /**
   * On SIGTERM, how long running requests (answers streaming) may take to finish after readiness
   * turns 503 and the BFF stops accepting connections; then what is left is cut. Keep it under the
   * orchestrator's kill timeout (Kubernetes: 30 s).
   */
  DRAIN_TIMEOUT_SECONDS: z._default(positiveInt, 25),

  /**
   * Storage the deploy API accepts builds from (their files are downloaded and checked there, and
   * hosts load them from there): origins, or origins with the folder builds live in
   * (`https://cdn.example/remotes`). A build's folder must be one of them (or, for a bare origin,
   * its root or one Supabase Storage public bucket) followed by exactly `/<name>/<version>`. The
   * local cdn and Supabase Storage stand-ins by default.
   */
  DEPLOY_STORAGE_ORIGINS: z._default(storageLocationList, [
    'http://localhost:8788',
    'http://127.0.0.1:8788',
    'http://localhost:54321',
    'http://127.0.0.1:54321',
  ]),
  /** Deploy API requests per client per minute. */
  DEPLOY_RATE_LIMIT: z._default(positiveInt, 60),
  /** How long one file of a build may take to download while it is checked (ms). */
  DEPLOY_FETCH_TIMEOUT_MS: z._default(positiveInt, 15_000),
  /** The largest build accepted (sum of its files, bytes). */
  DEPLOY_MAX_BUILD_BYTES: z._default(positiveInt, 50 * 1024 * 1024),
  /** Share of a canary's clients (0–1) reporting errors at which it is stopped automatically. */
  CANARY_ERROR_RATE_THRESHOLD: z._default(z.coerce.number().check(z.gt(0), z.lte(1)), 0.2),
  /** Clients that must have been served a canary before its error rate can stop it. */
  CANARY_MIN_CLIENTS: z._default(positiveInt, 20),
  /** How far back served canaries and their error reports count (seconds). */
  CANARY_WINDOW_SECONDS: z._default(positiveInt, 600),
  /**
   * Origins a browser may point one remote at for itself (a dev server, a preview build); see
   * docs/operations.md. Default: loopback when PUBLIC_ORIGIN is loopback (the local stack), else none.
   */
  REMOTE_OVERRIDE_ORIGINS: z.optional(overrideOriginList),

  /** A PostgreSQL server (postgres://…); without it PGlite runs inside the BFF. */
  DATABASE_URL: z.optional(z.url({ protocol: /^postgres(ql)?$/ })),
  /**
   * A session connection for LISTEN (live events), when DATABASE_URL goes through a
   * transaction-mode pooler (Supabase's port 6543, PgBouncer), which cannot hold a LISTEN.
   * Default: DATABASE_URL.
   */
  DATABASE_LISTEN_URL: z.optional(z.url({ protocol: /^postgres(ql)?$/ })),
  PGLITE_DATA_DIR: z._default(z.string().check(z.minLength(1)), '.tessera/pglite'),
  /** Create what hosted Supabase provides (roles, auth schema); default: on PGlite only. */
  DATABASE_BOOTSTRAP: z.optional(flag),
  /** Apply supabase/migrations at start. */
  DATABASE_MIGRATE: z._default(flag, true),

  SUPABASE_URL: z._default(httpUrl, 'http://127.0.0.1:54321'),
  // The local stand-in's keys (the Supabase CLI's well-known ones) are the defaults; anywhere
  // else they must be set (see the check below).
  SUPABASE_ANON_KEY: z._default(z.string().check(z.minLength(1)), localSupabaseKeys.anon),
  SUPABASE_SERVICE_ROLE_KEY: z._default(
    z.string().check(z.minLength(1)),
    localSupabaseKeys.serviceRole,
  ),
  /** `iss` of access tokens; default `${SUPABASE_URL}/auth/v1`. */
  SUPABASE_JWT_ISSUER: z.optional(httpUrl),

  SESSION_COOKIE_MAX_AGE_SECONDS: z._default(positiveInt, 30 * 24 * 3600),
  /** Refresh when less than this is left; above supabase-js's own 90 s margin. */
  SESSION_REFRESH_MARGIN_SECONDS: z._default(z.coerce.number().check(z.int(), z.gte(91)), 120),
  SESSION_TOUCH_INTERVAL_SECONDS: z._default(positiveInt, 60),
  /** A session ends this long after sign-in, however active (the cookie's Max-Age is only a hint). */
  SESSION_ABSOLUTE_LIFETIME_SECONDS: z._default(positiveInt, 30 * 24 * 3600),
  /** A session ends when it has not been used for this long. */
  SESSION_IDLE_TIMEOUT_SECONDS: z._default(positiveInt, 7 * 24 * 3600),
  /** How long a password-recovery link allows a new password without the current one. */
  RECOVERY_WINDOW_SECONDS: z._default(positiveInt, 900),
  /** Failed sign-ins for one account before its back-off starts. */
  SIGN_IN_FREE_FAILURES_PER_ACCOUNT: z._default(z.coerce.number().check(z.int(), z.gte(0)), 5),
  /** The first back-off delay; each further failure for the account doubles it. */
  SIGN_IN_BACKOFF_BASE_SECONDS: z._default(positiveInt, 1),
  /** The longest back-off delay: the owner never waits longer than this after a failure. */
  SIGN_IN_BACKOFF_MAX_SECONDS: z._default(positiveInt, 900),
  /** How long an account's failures are remembered after its last one (a success forgets them). */
  SIGN_IN_BACKOFF_MEMORY_SECONDS: z._default(positiveInt, 24 * 3600),
  /** Failed sign-ins one client address may make per window, whatever the accounts. */
  SIGN_IN_MAX_FAILURES_PER_CLIENT: z._default(positiveInt, 50),
  SIGN_IN_FAILURE_WINDOW_SECONDS: z._default(positiveInt, 900),
  /** Requests that send an email (sign-up, magic link, recovery, email change) per client per minute. */
  EMAIL_SEND_RATE_LIMIT: z._default(positiveInt, 10),

  /** Stripe's API origin; the local stand-in by default, `https://api.stripe.com` for real. */
  STRIPE_API_URL: z._default(httpUrl, 'http://127.0.0.1:12111'),
  STRIPE_SECRET_KEY: z._default(z.string().check(z.minLength(1)), 'sk_test_tessera_local'),
  /** The webhook endpoint's signing secret (the stand-in's well-known one by default). */
  STRIPE_WEBHOOK_SECRET: z._default(
    z.string().check(z.minLength(1)),
    'whsec_tessera_local_stand_in',
  ),

  /** A Resend-compatible mail API (`POST /emails`); the local mailbox by default (invites). */
  MAIL_API_URL: z._default(httpUrl, 'http://127.0.0.1:54324'),
  /** The mail API's key (`Authorization: Bearer`); the mailbox's well-known one by default. */
  MAIL_API_KEY: z._default(z.string().check(z.minLength(1)), 're_tessera_local_mailbox'),
  /** The sender of Tessera's own emails, `Name <address>` on a domain the mail service verified. */
  MAIL_FROM: z._default(z.string().check(z.minLength(3)), 'Tessera <no-reply@tessera.local>'),

  /** Any OpenAI-compatible server (`…/v1`); the local stand-in by default. */
  OPENAI_BASE_URL: z._default(httpUrl, 'http://127.0.0.1:8790/v1'),
  OPENAI_API_KEY: z._default(z.string().check(z.minLength(1)), 'sk-tessera-local'),
  /**
   * The server's model for each catalogue model, for servers that name theirs differently
   * (Ollama, vLLM): `gpt-4o-mini=llama3.2,gpt-4o=qwen2.5:32b`. Unlisted models keep their name.
   */
  OPENAI_MODEL_MAP: z.pipe(
    z._default(z.string(), ''),
    z.transform((value, ctx) => {
      const pairs = value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
        .map((item) => item.split('=').map((part) => part.trim()))
      if (pairs.some((pair) => pair.length !== 2 || pair.some((part) => part === ''))) {
        ctx.issues.push({
          code: 'custom',
          input: value,
          message: 'must be a list of model=server-model pairs',
        })
        return z.NEVER
      }
      return Object.fromEntries(pairs) as Record<string, string>
    }),
  ),
  /** Check each message with `/v1/moderations` first; off for servers that have none. */
  ASSISTANT_MODERATION: z._default(flag, true),
  /** How long the model may take to send the first token of an answer (ms). */
  ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: z._default(positiveInt, 20_000),
  /** How long the model may go silent in the middle of an answer (ms). */
  ASSISTANT_IDLE_TIMEOUT_MS: z._default(positiveInt, 30_000),
  /**
   * The longest an answer may stream; the BFF stops it there. At most 300: the sweep of a dead
   * BFF's holds counts on no answer lasting longer (modules/assistant/quota.ts).
   */
  ASSISTANT_MAX_ANSWER_SECONDS: z._default(positiveInt.check(z.lte(300)), 300),
  /**
   * A hold (and its answer, still `streaming`) older than this can only belong to a BFF that died
   * mid-answer: the sweep releases it uncharged and the answer reads as interrupted. Longer than
   * ASSISTANT_MAX_ANSWER_SECONDS plus the first-token timeout, the same on every replica.
   */
  ASSISTANT_ABANDONED_HOLD_SECONDS: z._default(positiveInt, 360),
  /** How often each BFF sweeps the holds of BFFs that died mid-answer (seconds). */
  ASSISTANT_HOLD_SWEEP_SECONDS: z._default(positiveInt, 60),
  /** The longest answer (tokens); each send reserves this much against the plan until it ends. */
  ASSISTANT_MAX_ANSWER_TOKENS: z._default(positiveInt, 1024),
  /** Earlier messages sent with each question: at most this many, and this many characters. */
  ASSISTANT_HISTORY_MESSAGES: z._default(z.coerce.number().check(z.int(), z.gte(0)), 20),
  ASSISTANT_HISTORY_CHARS: z._default(z.coerce.number().check(z.int(), z.gte(0)), 8000),
  /** Messages one user may send per minute. */
  ASSISTANT_RATE_LIMIT: z._default(positiveInt, 20),
  /**
   * The most requests to the model this process opens at once; further sends wait their turn
   * (within the first-token timeout). 0: no cap. Per replica (docs/decisions/028).
   */
  ASSISTANT_MODEL_CONCURRENCY: z._default(z.coerce.number().check(z.int(), z.gte(0)), 256),
  /** Of those, how many only "Priority answers" plans (Pro, Team) may take. */
  ASSISTANT_PRIORITY_RESERVED: z._default(z.coerce.number().check(z.int(), z.gte(0)), 64),

  /** Where each plugin's API is forwarded (docs/plugins.md); empty: no plugin has one. */
  PLUGIN_UPSTREAMS: z._default(pluginUpstreamList, {}),
  /** How long a plugin's upstream may take to answer (its headers; a whole non-stream answer), ms. */
  PLUGIN_TIMEOUT_MS: z._default(positiveInt, 10_000),
  /**
   * The BFF's ES256 key for the tokens it sends plugin upstreams (PKCS8 PEM or private JWK). Must
   * be set, and the same on every replica, wherever plugins are mapped outside the local stack.
   */
  PLUGIN_JWT_PRIVATE_KEY: z.optional(z.string().check(z.minLength(1))),
  /** The key before the last rotation (SPKI PEM or public JWK): still published in the JWKS. */
  PLUGIN_JWT_PREVIOUS_PUBLIC_KEY: z.optional(z.string().check(z.minLength(1))),
  /** Without PLUGIN_JWT_PRIVATE_KEY, the key is made once and kept in this file (local stack). */
  PLUGIN_JWT_KEY_FILE: z._default(z.string().check(z.minLength(1)), '.tessera/plugin-jwt-key.json'),
})

const loopback = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/

export type Env = Omit<
  z.output<typeof envSchema>,
  'ALLOWED_ORIGINS' | 'DATABASE_BOOTSTRAP' | 'SUPABASE_JWT_ISSUER' | 'REMOTE_OVERRIDE_ORIGINS'
> & {
  /** Origin patterns overrides may load from (`:*` any port, `*.` any subdomain); empty: none. */
  REMOTE_OVERRIDE_ORIGINS: string[]
  /** Origins allowed to call /api with credentials and to send state-changing requests. */
  ALLOWED_ORIGINS: string[]
  /** Absolute path of the built host. */
  HOST_DIST: string
  /** Absolute path of PGlite's data (unused with DATABASE_URL). */
  PGLITE_DATA_DIR: string
  DATABASE_BOOTSTRAP: boolean
  SUPABASE_JWT_ISSUER: string
  /** `${SUPABASE_URL}/auth/v1/.well-known/jwks.json`: the keys access tokens are checked with. */
  SUPABASE_JWKS_URL: string
  /** Served over https: the cookie is `__Host-tessera_session` and `Secure`. */
  SESSION_COOKIE_SECURE: boolean
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
  // The stand-in's well-known keys only make sense with the stand-in: a real project's URL with
  // them would fail at the first sign-in instead of now.
  if (!loopback.test(env.SUPABASE_URL)) {
    const missing = (['SUPABASE_ANON_KEY', 'SUPABASE_SERVICE_ROLE_KEY'] as const).filter(
      (key) => present[key] === undefined,
    )
    if (missing.length > 0) {
      throw new EnvError(
        missing.map((key) => ({
          key,
          message: 'must be set when SUPABASE_URL is not the local stand-in',
        })),
      )
    }
  }
  // The same for Stripe and OpenAI: the local defaults are refused against a real server.
  const remoteSecrets = [
    ...(loopback.test(env.STRIPE_API_URL)
      ? []
      : (['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const)),
    ...(loopback.test(new URL(env.OPENAI_BASE_URL).origin) ? [] : (['OPENAI_API_KEY'] as const)),
    ...(loopback.test(new URL(env.MAIL_API_URL).origin) ? [] : (['MAIL_API_KEY'] as const)),
  ].filter((key) => present[key] === undefined)
  if (remoteSecrets.length > 0) {
    throw new EnvError(
      remoteSecrets.map((key) => ({
        key,
        message: 'must be set when its service is not the local stand-in',
      })),
    )
  }
  // A live answer's hold must never look abandoned: it lasts up to the first-token timeout (the
  // model's request, moderation before it) and then the longest answer.
  const longestHoldSeconds =
    env.ASSISTANT_MAX_ANSWER_SECONDS + Math.ceil(env.ASSISTANT_FIRST_TOKEN_TIMEOUT_MS / 1000)
  if (env.ASSISTANT_ABANDONED_HOLD_SECONDS <= longestHoldSeconds) {
    throw new EnvError([
      {
        key: 'ASSISTANT_ABANDONED_HOLD_SECONDS',
        message: `must be more than ASSISTANT_MAX_ANSWER_SECONDS plus the first-token timeout (${longestHoldSeconds} s)`,
      },
    ])
  }
  // The lane kept for priority must leave the other plans at least one slot.
  if (
    env.ASSISTANT_MODEL_CONCURRENCY > 0 &&
    env.ASSISTANT_PRIORITY_RESERVED >= env.ASSISTANT_MODEL_CONCURRENCY
  ) {
    throw new EnvError([
      {
        key: 'ASSISTANT_PRIORITY_RESERVED',
        message: `must be less than ASSISTANT_MODEL_CONCURRENCY (${env.ASSISTANT_MODEL_CONCURRENCY})`,
      },
    ])
  }
  // A key made per process would differ between replicas and vanish with each deploy: outside the
  // local stack, plugin upstreams need the operator's key.
  if (
    Object.keys(env.PLUGIN_UPSTREAMS).length > 0 &&
    env.PLUGIN_JWT_PRIVATE_KEY === undefined &&
    !loopback.test(env.PUBLIC_ORIGIN)
  ) {
    throw new EnvError([
      {
        key: 'PLUGIN_JWT_PRIVATE_KEY',
        message:
          'must be set (an ES256 key, PKCS8 PEM or JWK, the same on every replica) when PLUGIN_UPSTREAMS maps plugins and PUBLIC_ORIGIN is not local',
      },
    ])
  }
  return {
    ...env,
    PLUGIN_JWT_KEY_FILE: resolveFromRoot(rootDir, env.PLUGIN_JWT_KEY_FILE),
    ALLOWED_ORIGINS: [
      ...new Set(env.ALLOWED_ORIGINS ?? [env.PUBLIC_ORIGIN, 'http://localhost:5173']),
    ],
    HOST_DIST: resolveFromRoot(rootDir, env.HOST_DIST),
    PGLITE_DATA_DIR: env.PGLITE_DATA_DIR.includes('://')
      ? env.PGLITE_DATA_DIR
      : resolveFromRoot(rootDir, env.PGLITE_DATA_DIR),
    DATABASE_BOOTSTRAP: env.DATABASE_BOOTSTRAP ?? env.DATABASE_URL === undefined,
    SUPABASE_JWT_ISSUER: env.SUPABASE_JWT_ISSUER ?? `${env.SUPABASE_URL}/auth/v1`,
    SUPABASE_JWKS_URL: `${env.SUPABASE_URL}/auth/v1/.well-known/jwks.json`,
    SESSION_COOKIE_SECURE: env.PUBLIC_ORIGIN.startsWith('https:'),
    REMOTE_OVERRIDE_ORIGINS:
      env.REMOTE_OVERRIDE_ORIGINS ??
      (loopback.test(env.PUBLIC_ORIGIN) ? loopbackOverrideOrigins : []),
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
