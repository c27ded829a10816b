import type { Sql } from '@tessera/db/sql'
import type { Context } from 'hono'
import type { EventBus, EventLog } from '../modules/events/event-outbox.ts'
import type { EventHub } from '../modules/events/event-hub.ts'
import type { StripeClients } from '../modules/billing/stripe-client.ts'
import type { WebhookCryptoProvider } from '../modules/billing/webhook-crypto.ts'
import type { AccessTokenVerifier } from '../modules/identity/access-tokens.ts'
import type { AuthGateway } from '../modules/identity/auth-gateway.ts'
import type { AttachmentStorage } from '../modules/attachments/attachment-storage.ts'
import type { UpstreamClient } from '../modules/plugins/plugin-proxy.ts'
import type { PluginSigningKeys } from '../modules/plugins/signing-keys.ts'
import type { RegistrySource } from '../modules/registry/registry.ts'
import type { TelemetryStore } from '../modules/registry/telemetry-store.ts'
import type { Clock } from '../platform/clock.ts'
import type { Env } from '../platform/env.ts'
import type { Logger } from '../platform/logger.ts'
import type { MailSender } from '../platform/mail.ts'
import type { Readiness } from '../platform/readiness.ts'
import type { OnMembersChanged } from '../modules/workspaces/workspaces.ts'
import type { HostAssets } from './host-page.ts'
import type { OriginAllowlist } from './origin-allowlist.ts'

/** What `createApp` is built from: the settings it reads and everything the runtime injects. */
export interface AppDeps {
  env: Pick<
    Env,
    | 'ALLOWED_ORIGINS'
    | 'BODY_LIMIT_BYTES'
    | 'TELEMETRY_BODY_LIMIT_BYTES'
    | 'TELEMETRY_RATE_LIMIT'
    | 'SHARED_LINK_RATE_LIMIT'
    | 'SHARED_LIMIT_TIMEOUT_MS'
    | 'SHARED_LIMITS'
    | 'SSE_HEARTBEAT_MS'
    | 'PUBLIC_ORIGIN'
    | 'SESSION_COOKIE_SECURE'
    | 'SESSION_COOKIE_MAX_AGE_SECONDS'
    | 'SESSION_REFRESH_MARGIN_SECONDS'
    | 'SESSION_TOUCH_INTERVAL_SECONDS'
    | 'SESSION_ABSOLUTE_LIFETIME_SECONDS'
    | 'SESSION_IDLE_TIMEOUT_SECONDS'
    | 'RECOVERY_WINDOW_SECONDS'
    | 'SIGN_IN_FREE_FAILURES_PER_ACCOUNT'
    | 'SIGN_IN_BACKOFF_BASE_SECONDS'
    | 'SIGN_IN_BACKOFF_MAX_SECONDS'
    | 'SIGN_IN_BACKOFF_MEMORY_SECONDS'
    | 'SIGN_IN_MAX_FAILURES_PER_CLIENT'
    | 'SIGN_IN_FAILURE_WINDOW_SECONDS'
    | 'EMAIL_SEND_RATE_LIMIT'
    | 'DEPLOY_STORAGE_ORIGINS'
    | 'DEPLOY_RATE_LIMIT'
    | 'DEPLOY_FETCH_TIMEOUT_MS'
    | 'DEPLOY_MAX_BUILD_BYTES'
    | 'CANARY_ERROR_RATE_THRESHOLD'
    | 'CANARY_MIN_CLIENTS'
    | 'CANARY_WINDOW_SECONDS'
    | 'REMOTE_OVERRIDE_ORIGINS'
    | 'STRIPE_API_URL'
    | 'SUPABASE_URL'
    | 'SUPABASE_ANON_KEY'
    | 'SUPABASE_SERVICE_ROLE_KEY'
    | 'STRIPE_SECRET_KEY'
    | 'STRIPE_WEBHOOK_SECRET'
    | 'OPENAI_BASE_URL'
    | 'OPENAI_API_KEY'
    | 'OPENAI_MODEL_MAP'
    | 'ASSISTANT_MODERATION'
    | 'ASSISTANT_FIRST_TOKEN_TIMEOUT_MS'
    | 'ASSISTANT_IDLE_TIMEOUT_MS'
    | 'ASSISTANT_MAX_ANSWER_SECONDS'
    | 'ASSISTANT_ABANDONED_HOLD_SECONDS'
    | 'ASSISTANT_MAX_ANSWER_TOKENS'
    | 'ASSISTANT_HISTORY_MESSAGES'
    | 'ASSISTANT_HISTORY_CHARS'
    | 'ASSISTANT_RATE_LIMIT'
    | 'ASSISTANT_MODEL_CONCURRENCY'
    | 'ASSISTANT_PRIORITY_RESERVED'
    | 'PLUGIN_UPSTREAMS'
    | 'PLUGIN_TIMEOUT_MS'
    | 'PLUGIN_JWT_PRIVATE_KEY'
    | 'PLUGIN_JWT_PREVIOUS_PUBLIC_KEY'
    | 'MAIL_API_URL'
    | 'MAIL_API_KEY'
    | 'MAIL_FROM'
  >
  logger: Logger
  /** What `GET /api/remotes` serves: the registry tables (registry-db-source.ts) or a test's content. */
  registry: RegistrySource
  hub: EventHub
  /**
   * Live events through PostgreSQL (docs/decisions/018; the Node entry's relay): events and
   * cache invalidations are written to the outbox, registry changes in their transaction, and
   * `GET /api/events` resumes from `Last-Event-ID`. Without it (in-process tests) events go to
   * `hub` directly and nothing is replayed.
   */
  outbox?: { bus: EventBus; log: EventLog }
  /** The database (PGlite or a server): sessions, and user data under RLS. */
  db: Sql
  /** Supabase Auth. */
  authGateway: AuthGateway
  /** Where attachments' bytes go; by default the private bucket at `SUPABASE_URL` (service key). */
  attachmentStorage?: AttachmentStorage
  /** Checks access tokens Auth issues against its published keys. */
  accessTokens: AccessTokenVerifier
  /** The built host; absent when the host is served elsewhere (Vite in `npm run dev`). */
  assets?: HostAssets
  clock?: Clock
  telemetry?: TelemetryStore
  /** Defaults to `env.ALLOWED_ORIGINS`; the Node entry adds its own origin to it. */
  origins?: OriginAllowlist
  /**
   * The client's network address, for per-client limits: the Node entry's comes from
   * platform/client-address.ts (X-Forwarded-For only from TRUSTED_PROXIES).
   */
  clientKey?: (c: Context) => string | undefined
  version?: string
  /** Stripe's clients (docs/decisions/007); by default from `STRIPE_API_URL` and the key. */
  stripe?: StripeClients
  /**
   * The HTTP client of the OpenAI and Stripe SDKs (the Node entry's is node-fetch.ts); by default
   * the runtime's `fetch`. Unused when `stripe` is given.
   */
  serviceFetch?: typeof fetch
  /** How Stripe's webhook signatures are computed (the Node entry's is `node:crypto`'s HMAC). */
  webhookCrypto?: WebhookCryptoProvider
  /** How requests reach plugin upstreams (the Node entry's is `node:http`); by default `fetch`. */
  pluginClient?: UpstreamClient
  /**
   * The key plugin tokens are signed with (the Node entry loads it at start, from env or the key
   * file); by default from `PLUGIN_JWT_PRIVATE_KEY`, or one made for this app.
   */
  pluginKeys?: PluginSigningKeys
  /**
   * Background work: with it, abandoned answer holds are swept every `sweepEveryMs` until the
   * signal aborts (the Node entry passes both; in-process tests run without).
   */
  background?: { signal: AbortSignal; sweepEveryMs: number }
  /**
   * What `GET /api/health/ready` checks; the app adds `database`, the Node entry `migrations`, and
   * whoever else must be up before requests succeed (the live-event listener) registers its own.
   */
  readiness?: Readiness
  /**
   * Where limits and counters live (rate limits, the sign-in throttle, canary clients): in `db`,
   * shared by every replica (the default; `namespace` keeps apps over one test database apart),
   * or `false` for this process only (tests without a database).
   */
  sharedLimits?: false | { namespace?: string }
  /**
   * Workspaces: the email port for invites (Resend's API at `MAIL_API_URL` by default), and the
   * seat-billing seam called after each change of a team's member count (nothing by default).
   */
  workspaces?: { mail?: MailSender; onMembersChanged?: OnMembersChanged }
}
