import { ApiError, CONTRACT_MAJOR, HOST_SHARED_MAJORS } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { Hono } from 'hono'
import type { Context } from 'hono'
import { methodNotAllowed } from 'hono/method-not-allowed'
import type { AppEnv } from './app-env.ts'
import { systemClock } from '../platform/clock.ts'
import type { Clock } from '../platform/clock.ts'
import type { Env } from '../platform/env.ts'
import { createErrorHandler, errorResponse } from './error-handler.ts'
import { hostAssets, hostPage } from './host-page.ts'
import type { HostAssets } from './host-page.ts'
import type { Logger } from '../platform/logger.ts'
import { accessLog } from './middleware/access-log.ts'
import { bodySize } from './middleware/body-size.ts'
import { corsAllowlist } from './middleware/cors-allowlist.ts'
import { csrf } from './middleware/csrf.ts'
import { requestId } from './middleware/request-id.ts'
import { securityHeaders } from './middleware/security-headers.ts'
import { sessionCookie } from './middleware/session.ts'
import { assistantRoutes } from '../modules/assistant/assistant-routes.ts'
import { authRoutes } from '../modules/identity/auth-routes.ts'
import { billingRoutes, signatureAuthenticatedPaths } from '../modules/billing/billing-routes.ts'
import { DEPLOY_PATH_PREFIX, deployRoutes } from '../modules/deploy/deploy-routes.ts'
import { eventsRoutes } from '../modules/events/events-routes.ts'
import { healthRoutes } from './health-routes.ts'
import { cspReportRoutes } from './csp-report-routes.ts'
import { meRoutes } from '../modules/identity/me-routes.ts'
import { remoteOverridesRoutes } from '../modules/registry/overrides-routes.ts'
import { remotesRoutes } from '../modules/registry/remotes-routes.ts'
import { telemetryRoutes } from '../modules/registry/telemetry-routes.ts'
import type { AccessTokenVerifier } from '../modules/identity/access-tokens.ts'
import { createAssistant } from '../modules/assistant/assistant.ts'
import { createChatModel } from '../modules/assistant/model.ts'
import { createAuthEvents } from '../modules/identity/auth-events.ts'
import type { AuthGateway } from '../modules/identity/auth-gateway.ts'
import { createCanaryGuard, createCanaryMonitor } from '../modules/deploy/canary-monitor.ts'
import { createDeployService } from '../modules/deploy/deploy-service.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'
import { createBuildVerifier } from '../modules/deploy/verify-build.ts'
import { createBilling } from '../modules/billing/billing.ts'
import { createStripeClients } from '../modules/billing/stripe-client.ts'
import type { StripeClients } from '../modules/billing/stripe-client.ts'
import type { EventHub } from '../modules/events/event-hub.ts'
import type { Identity } from '../modules/identity/identity.ts'
import { createOriginAllowlist } from './origin-allowlist.ts'
import type { OriginAllowlist } from './origin-allowlist.ts'
import { createProfiles } from '../modules/identity/profiles.ts'
import { createRateLimiter } from '../platform/rate-limiter.ts'
import { createRequestSnapshots } from '../modules/registry/registry-viewer.ts'
import { createRemoteOverrides, withRemoteOverrides } from '../modules/registry/remote-overrides.ts'
import { createSnapshotReader } from '../modules/registry/registry.ts'
import type { RegistrySource } from '../modules/registry/registry.ts'
import { createSessions } from '../modules/identity/sessions.ts'
import { createSignInThrottle } from '../modules/identity/sign-in-throttle.ts'
import { createTelemetryStore } from '../modules/registry/telemetry-store.ts'
import type { TelemetryStore } from '../modules/registry/telemetry-store.ts'
import { BFF_VERSION } from '../platform/version.ts'

export interface AppDeps {
  env: Pick<
    Env,
    | 'ALLOWED_ORIGINS'
    | 'BODY_LIMIT_BYTES'
    | 'TELEMETRY_BODY_LIMIT_BYTES'
    | 'TELEMETRY_RATE_LIMIT'
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
    | 'STRIPE_SECRET_KEY'
    | 'STRIPE_WEBHOOK_SECRET'
    | 'OPENAI_BASE_URL'
    | 'OPENAI_API_KEY'
    | 'OPENAI_MODEL_MAP'
    | 'ASSISTANT_MODERATION'
    | 'ASSISTANT_FIRST_TOKEN_TIMEOUT_MS'
    | 'ASSISTANT_IDLE_TIMEOUT_MS'
    | 'ASSISTANT_MAX_ANSWER_SECONDS'
    | 'ASSISTANT_MAX_ANSWER_TOKENS'
    | 'ASSISTANT_HISTORY_MESSAGES'
    | 'ASSISTANT_HISTORY_CHARS'
    | 'ASSISTANT_RATE_LIMIT'
  >
  logger: Logger
  /** What `GET /api/remotes` serves: the registry tables (registry-db-source.ts) or a test's content. */
  registry: RegistrySource
  hub: EventHub
  /** The database (PGlite or a server): sessions, and user data under RLS. */
  db: Sql
  /** Supabase Auth. */
  authGateway: AuthGateway
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
  /** The model's HTTP client (the Node entry's is node-fetch.ts); by default the runtime's `fetch`. */
  modelFetch?: typeof fetch
  /**
   * Background work: with it, abandoned answer holds are swept every `sweepEveryMs` until the
   * signal aborts (the Node entry passes both; in-process tests run without).
   */
  background?: { signal: AbortSignal; sweepEveryMs: number }
}

/**
 * How long a session or profile read stays in memory: changes through this process apply at
 * once; those of another BFF process show within this time (docs/decisions/005).
 */
const recentLookupMs = 2000

/**
 * The BFF as a Web-standard Hono app: no Node APIs here (see node.ts), so it runs in-process
 * for tests and could run on an edge runtime.
 */
export function createApp(deps: AppDeps) {
  const { env, logger, hub, assets } = deps
  const clock = deps.clock ?? systemClock
  const origins = deps.origins ?? createOriginAllowlist(env.ALLOWED_ORIGINS)
  const snapshotReader = createSnapshotReader({ registry: deps.registry, logger, clock })
  const canaryMonitor = createCanaryMonitor({
    clock,
    windowMs: env.CANARY_WINDOW_SECONDS * 1000,
    threshold: env.CANARY_ERROR_RATE_THRESHOLD,
    minClients: env.CANARY_MIN_CLIENTS,
  })
  const overrides = createRemoteOverrides({
    origins: env.REMOTE_OVERRIDE_ORIGINS,
    secureCookies: env.SESSION_COOKIE_SECURE,
  })
  // Every reader of a viewer's snapshot goes through this one object (docs/decisions/009), with
  // this browser's overrides on top: /api/remotes and the host page's CSP see the same remotes.
  const snapshots = withRemoteOverrides(
    createRequestSnapshots({
      reader: snapshotReader,
      secureCookies: env.SESSION_COOKIE_SECURE,
      onCanaryServed: (remote, version, subject) => canaryMonitor.served(remote, version, subject),
    }),
    overrides,
  )
  const deploy = createDeployService({
    sql: deps.db,
    clock,
    logger,
    verifier: createBuildVerifier({
      allowedOrigins: env.DEPLOY_STORAGE_ORIGINS,
      timeoutMs: env.DEPLOY_FETCH_TIMEOUT_MS,
      maxBytes: env.DEPLOY_MAX_BUILD_BYTES,
    }),
    host: { contract: CONTRACT_MAJOR, shared: HOST_SHARED_MAJORS },
    onChange: () => deps.registry.invalidate?.(),
  })
  const events = createAuthEvents(hub, clock)
  const sessions = createSessions({
    sql: deps.db,
    auth: deps.authGateway,
    tokens: deps.accessTokens,
    events,
    clock,
    logger,
    refreshMarginMs: env.SESSION_REFRESH_MARGIN_SECONDS * 1000,
    touchIntervalMs: env.SESSION_TOUCH_INTERVAL_SECONDS * 1000,
    recoveryWindowMs: env.RECOVERY_WINDOW_SECONDS * 1000,
    absoluteLifetimeMs: env.SESSION_ABSOLUTE_LIFETIME_SECONDS * 1000,
    idleTimeoutMs: env.SESSION_IDLE_TIMEOUT_SECONDS * 1000,
    cacheMs: recentLookupMs,
  })
  const billing = createBilling({
    sql: deps.db,
    stripe:
      deps.stripe ??
      createStripeClients({ apiUrl: env.STRIPE_API_URL, secretKey: env.STRIPE_SECRET_KEY }),
    hub,
    clock,
    logger,
    publicOrigin: env.PUBLIC_ORIGIN,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET,
    cacheMs: recentLookupMs,
  })
  const identity: Identity = {
    gateway: deps.authGateway,
    sessions,
    profiles: createProfiles(deps.db, { clock, cacheMs: recentLookupMs }),
    events,
    throttle: createSignInThrottle({
      clock,
      account: {
        freeFailures: env.SIGN_IN_FREE_FAILURES_PER_ACCOUNT,
        baseDelayMs: env.SIGN_IN_BACKOFF_BASE_SECONDS * 1000,
        maxDelayMs: env.SIGN_IN_BACKOFF_MAX_SECONDS * 1000,
        memoryMs: env.SIGN_IN_BACKOFF_MEMORY_SECONDS * 1000,
      },
      client: {
        maxFailures: env.SIGN_IN_MAX_FAILURES_PER_CLIENT,
        windowMs: env.SIGN_IN_FAILURE_WINDOW_SECONDS * 1000,
      },
    }),
    emailLimiter: createRateLimiter({ limit: env.EMAIL_SEND_RATE_LIMIT, windowMs: 60_000, clock }),
    clock,
    logger,
    publicOrigin: env.PUBLIC_ORIGIN,
    clientKey: deps.clientKey,
    entitlements: (claims) => billing.entitlements(claims),
  }
  const assistant = createAssistant({
    sql: deps.db,
    model: createChatModel({
      baseURL: env.OPENAI_BASE_URL,
      apiKey: env.OPENAI_API_KEY,
      modelMap: env.OPENAI_MODEL_MAP,
      timeoutMs: env.ASSISTANT_FIRST_TOKEN_TIMEOUT_MS,
      ...(deps.modelFetch === undefined ? {} : { fetch: deps.modelFetch }),
    }),
    // The same entitlements /api/me reports: the plan of the user's subscription.
    entitlementsForUser: (claims) => billing.entitlements(claims),
    hub,
    clock,
    logger,
    settings: {
      moderation: env.ASSISTANT_MODERATION,
      firstTokenTimeoutMs: env.ASSISTANT_FIRST_TOKEN_TIMEOUT_MS,
      idleTimeoutMs: env.ASSISTANT_IDLE_TIMEOUT_MS,
      maxAnswerMs: env.ASSISTANT_MAX_ANSWER_SECONDS * 1000,
      maxAnswerTokens: env.ASSISTANT_MAX_ANSWER_TOKENS,
      historyMessages: env.ASSISTANT_HISTORY_MESSAGES,
      historyChars: env.ASSISTANT_HISTORY_CHARS,
      ratePerMinute: env.ASSISTANT_RATE_LIMIT,
    },
  })

  if (deps.background !== undefined) {
    const { signal, sweepEveryMs } = deps.background
    const sweep = setInterval(() => {
      assistant.releaseAbandonedHolds().catch((error: unknown) => {
        logger.warn('could not sweep abandoned holds', { error })
      })
    }, sweepEveryMs)
    signal.addEventListener('abort', () => clearInterval(sweep), { once: true })
  }

  const app = new Hono<AppEnv>()
  app.use(requestId())
  app.use(accessLog({ logger }))
  app.use(securityHeaders())
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        errorResponse(c, new ApiError('method_not_allowed', { details: { allow: methods } })),
    }),
  )
  app.use('/api/*', corsAllowlist({ origins }))
  app.use(
    '/api/*',
    csrf({
      origins,
      exemptPaths: signatureAuthenticatedPaths,
      exemptPrefixes: [DEPLOY_PATH_PREFIX],
    }),
  )
  app.use('/api/*', bodySize({ maxBytes: env.BODY_LIMIT_BYTES }))
  app.use(
    '/api/*',
    sessionCookie({
      sessions,
      secure: env.SESSION_COOKIE_SECURE,
      maxAgeSeconds: env.SESSION_COOKIE_MAX_AGE_SECONDS,
    }),
  )
  app.use(hostAssets({ assets }))
  app.onError(createErrorHandler(logger))
  app.notFound(
    async (c) =>
      (await hostPage(c, {
        assets,
        readSnapshot: () => snapshots.forRequest(c, { everyCanary: true }),
      })) ?? errorResponse(c, new ApiError('not_found')),
  )

  return app
    .route('/api/health', healthRoutes({ clock, version: deps.version ?? BFF_VERSION }))
    .route('/api/csp-reports', cspReportRoutes({ logger, clock, clientKey: deps.clientKey }))
    .route('/api/remotes', remotesRoutes({ snapshotFor: (c) => snapshots.forRequest(c) }))
    .route(
      '/api/remotes/overrides',
      remoteOverridesRoutes({ overrides, registrySnapshot: () => snapshotReader.build({}) }),
    )
    .route(
      '/api/telemetry',
      telemetryRoutes({
        logger,
        clock,
        store: deps.telemetry ?? createTelemetryStore(),
        bodyLimitBytes: env.TELEMETRY_BODY_LIMIT_BYTES,
        ratePerMinute: env.TELEMETRY_RATE_LIMIT,
        clientKey: deps.clientKey,
        onReport: createCanaryGuard({
          monitor: canaryMonitor,
          reader: snapshotReader,
          snapshots,
          deploy,
        }),
      }),
    )
    .route('/api/events', eventsRoutes({ hub, clock, logger, heartbeatMs: env.SSE_HEARTBEAT_MS }))
    .route('/api/auth', authRoutes(identity))
    .route('/api/me', meRoutes(identity))
    .route('/api/assistant', assistantRoutes({ assistant, logger }))
    .route('/api/billing', billingRoutes({ billing, webhookSecret: env.STRIPE_WEBHOOK_SECRET }))
    .route(
      '/api/deploy',
      deployRoutes({
        deploy,
        tokens: createDeployTokens({ sql: deps.db, clock }),
        clock,
        ratePerMinute: env.DEPLOY_RATE_LIMIT,
        clientKey: deps.clientKey,
      }),
    )
}

/** Every route of the BFF, for the typed client: `hc<AppType>(baseUrl)`. */
export type AppType = ReturnType<typeof createApp>
