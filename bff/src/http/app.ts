import { ApiError, CONTRACT_MAJOR, HOST_SHARED_MAJORS } from '@tessera/contracts'
import { Hono } from 'hono'
import { getCookie } from 'hono/cookie'
import { methodNotAllowed } from 'hono/method-not-allowed'
import type { AppEnv } from './app-env.ts'
import { systemClock } from '../platform/clock.ts'
import { createErrorHandler, errorResponse } from './error-handler.ts'
import { firstReadRequest } from './first-reads.ts'
import { hostAssets, hostPage } from './host-page.ts'
import { CachedRouter } from './cached-router.ts'
import { createLimits } from './limits.ts'
import type { AppDeps } from './app-deps.ts'
import { accessLog } from './middleware/access-log.ts'
import { bodySize } from './middleware/body-size.ts'
import { compressJson } from './middleware/compress-json.ts'
import { corsAllowlist } from './middleware/cors-allowlist.ts'
import { csrf } from './middleware/csrf.ts'
import { drainHint } from './middleware/drain-hint.ts'
import { requestId } from './middleware/request-id.ts'
import { securityHeaders } from './middleware/security-headers.ts'
import { sessionCookie, sessionCookieName } from './middleware/session.ts'
import { assistantRoutes } from '../modules/assistant/assistant-routes.ts'
import { attachmentRoutes, isAttachmentUpload } from '../modules/attachments/attachment-routes.ts'
import { createAttachments } from '../modules/attachments/attachments.ts'
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
import { createAssistant } from '../modules/assistant/assistant.ts'
import { createChatModel } from '../modules/assistant/model.ts'
import { createModelLanes, withModelLanes } from '../modules/assistant/model-lanes.ts'
import { memberCapRoutes } from '../modules/assistant/member-caps.ts'
import { searchRoutes } from '../modules/assistant/search-routes.ts'
import { shareRoutes } from '../modules/sharing/share-routes.ts'
import { sharedApiRoutes, sharedPageRoutes } from '../modules/sharing/shared-routes.ts'
import { createAuthEvents } from '../modules/identity/auth-events.ts'
import { createCanaryGuard } from '../modules/deploy/canary-monitor.ts'
import { createConsole } from '../modules/console/console.ts'
import { createDeployService } from '../modules/deploy/deploy-service.ts'
import { createDeployTokens } from '../modules/deploy/tokens.ts'
import { createBuildVerifier } from '../modules/deploy/verify-build.ts'
import { createBilling } from '../modules/billing/billing.ts'
import { createStripeClients } from '../modules/billing/stripe-client.ts'
import { createCacheInvalidations } from '../modules/events/cache-invalidation.ts'
import { createLocalBus } from '../modules/events/event-outbox.ts'
import { publishRegistryChange } from '../modules/registry/registry-changes.ts'
import type { Identity } from '../modules/identity/identity.ts'
import { createOriginAllowlist } from './origin-allowlist.ts'
import { createProfiles } from '../modules/identity/profiles.ts'
import { createReadiness } from '../platform/readiness.ts'
import { createRequestSnapshots } from '../modules/registry/registry-viewer.ts'
import { createRemoteOverrides, withRemoteOverrides } from '../modules/registry/remote-overrides.ts'
import { createSnapshotReader } from '../modules/registry/registry.ts'
import { createSessions } from '../modules/identity/sessions.ts'
import { createTelemetryStore } from '../modules/registry/telemetry-store.ts'
import { createSessionContexts } from '../modules/workspaces/session-contexts.ts'
import { createWorkspaces } from '../modules/workspaces/workspaces.ts'
import { BFF_VERSION } from '../platform/version.ts'
import { fetchUpstreamClient } from '../modules/plugins/plugin-proxy.ts'
import { jwksRoutes, pluginRoutes } from '../modules/plugins/plugin-routes.ts'
import { createPluginTokens } from '../modules/plugins/plugin-tokens.ts'
import { loadPluginSigningKeys } from '../modules/plugins/signing-keys.ts'
import type { PluginSigningKeys } from '../modules/plugins/signing-keys.ts'

export type { AppDeps } from './app-deps.ts'

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
  const bus = deps.outbox?.bus ?? createLocalBus(hub)
  const invalidations = createCacheInvalidations({ bus, hub, clock })
  invalidations.subscribe((invalidation) => {
    if (invalidation.cache === 'registry') deps.registry.invalidate?.()
  })
  const origins = deps.origins ?? createOriginAllowlist(env.ALLOWED_ORIGINS)
  const readiness = deps.readiness ?? createReadiness()
  readiness.register('database', async () => {
    await deps.db.query('select 1')
  })
  const snapshotReader = createSnapshotReader({ registry: deps.registry, logger, clock })
  const { counters, limiters, canaryMonitor, throttle } = createLimits({
    db: deps.db,
    clock,
    logger,
    env,
    shared: deps.sharedLimits ?? (env.SHARED_LIMITS ? undefined : false),
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
      // Remotes for operators only are left out of everyone else's snapshot.
      isOperator: (userId) => operatorConsole.roles.isOperator(userId),
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
    hasPluginUpstream: (name) => Object.hasOwn(env.PLUGIN_UPSTREAMS, name),
    // With the outbox, every replica (this one too) hears of the change from it instead.
    ...(deps.outbox === undefined
      ? { onChange: () => deps.registry.invalidate?.() }
      : {
          onChange: () => undefined,
          inTransaction: (tx) => publishRegistryChange({ bus, invalidations, clock }, tx),
        }),
  })
  const operatorConsole = createConsole({
    sql: deps.db,
    clock,
    logger,
    env,
    deploy,
    invalidations,
    counters,
    namespace: deps.sharedLimits === false ? undefined : deps.sharedLimits?.namespace,
    version: deps.version ?? BFF_VERSION,
    background: deps.background?.signal,
  })
  const events = createAuthEvents(bus, clock, logger)
  const sessions = createSessions({
    sql: deps.db,
    auth: deps.authGateway,
    tokens: deps.accessTokens,
    events,
    invalidations,
    clock,
    logger,
    refreshMarginMs: env.SESSION_REFRESH_MARGIN_SECONDS * 1000,
    touchIntervalMs: env.SESSION_TOUCH_INTERVAL_SECONDS * 1000,
    recoveryWindowMs: env.RECOVERY_WINDOW_SECONDS * 1000,
    absoluteLifetimeMs: env.SESSION_ABSOLUTE_LIFETIME_SECONDS * 1000,
    idleTimeoutMs: env.SESSION_IDLE_TIMEOUT_SECONDS * 1000,
    cacheMs: recentLookupMs,
  })
  const sessionContexts = createSessionContexts({
    clock,
    ttlMs: recentLookupMs,
    invalidations,
  })
  const billing = createBilling({
    usersChanged: sessionContexts.changed,
    sql: deps.db,
    stripe:
      deps.stripe ??
      createStripeClients({
        apiUrl: env.STRIPE_API_URL,
        secretKey: env.STRIPE_SECRET_KEY,
        ...(deps.serviceFetch === undefined ? {} : { fetch: deps.serviceFetch }),
      }),
    ...(deps.webhookCrypto === undefined ? {} : { webhookCrypto: deps.webhookCrypto }),
    bus,
    invalidations,
    clock,
    logger,
    publicOrigin: env.PUBLIC_ORIGIN,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET,
    cacheMs: recentLookupMs,
  })
  const identity: Identity = {
    gateway: deps.authGateway,
    sessions,
    profiles: createProfiles(deps.db, { clock, cacheMs: recentLookupMs, invalidations }),
    events,
    throttle,
    emailLimiter: limiters({ name: 'email', limit: env.EMAIL_SEND_RATE_LIMIT, windowMs: 60_000 }),
    ...(counters === undefined ? {} : { sharedCounters: counters }),
    clock,
    logger,
    publicOrigin: env.PUBLIC_ORIGIN,
    clientKey: deps.clientKey,
    entitlements: (claims, sessionId) => {
      if (sessionId === undefined) return billing.entitlements(claims)
      const session = { id: sessionId, userId: claims.sub, claims }
      return sessionContexts.entitlements(session, () => billing.entitlementsOfSession(session))
    },
    currentWorkspace: (session) =>
      sessionContexts.workspace(session, async () => {
        const { service } = workspaces
        const summary = await service.summaryOf(session, await service.currentOf(session))
        return { id: summary.id, name: summary.name, kind: summary.kind, role: summary.role }
      }),
    rolesOf: (userId) => operatorConsole.roles.rolesOf(userId),
  }
  let pluginKeys: Promise<PluginSigningKeys> | undefined
  const readPluginKeys = () =>
    (pluginKeys ??=
      deps.pluginKeys === undefined
        ? loadPluginSigningKeys({
            privateKey: env.PLUGIN_JWT_PRIVATE_KEY,
            previousPublicKey: env.PLUGIN_JWT_PREVIOUS_PUBLIC_KEY,
          })
        : Promise.resolve(deps.pluginKeys))
  const pluginTokens = createPluginTokens({
    keys: readPluginKeys,
    issuer: env.PUBLIC_ORIGIN,
    clock,
  })
  const workspaces = createWorkspaces({
    sql: deps.db,
    bus,
    clock,
    logger,
    env,
    mail: deps.workspaces?.mail,
    // Seat billing: a team's seats follow its members, and extra seats need confirming.
    onMembersChanged: async (workspaceId) => {
      await billing.onMembersChanged(workspaceId)
      await deps.workspaces?.onMembersChanged?.(workspaceId)
    },
    beforeInvite: (tx, workspaceId, options) =>
      billing.checkInviteSeat(tx, workspaceId, options.confirmExtraSeat),

    usersChanged: sessionContexts.changed,
  })
  const attachments = createAttachments({
    sql: deps.db,
    storage: deps.attachmentStorage,
    supabase: { url: env.SUPABASE_URL, serviceRoleKey: env.SUPABASE_SERVICE_ROLE_KEY },
    entitlementsForUser: (claims, workspaceId) => billing.entitlements(claims, workspaceId),
    clock,
    logger,
  })
  const assistant = createAssistant({
    attachments,
    sql: deps.db,
    // "Priority answers": the model's requests are capped, with a lane kept for paying plans.
    model: withModelLanes(
      createChatModel({
        baseURL: env.OPENAI_BASE_URL,
        apiKey: env.OPENAI_API_KEY,
        modelMap: env.OPENAI_MODEL_MAP,
        timeoutMs: env.ASSISTANT_FIRST_TOKEN_TIMEOUT_MS,
        ...(deps.serviceFetch === undefined ? {} : { fetch: deps.serviceFetch }),
      }),
      createModelLanes(
        {
          capacity: env.ASSISTANT_MODEL_CONCURRENCY,
          reserved: env.ASSISTANT_PRIORITY_RESERVED,
        },
        clock,
      ),
      (lane, waitedMs) => logger.info('a send waited for the model', { lane, waitedMs }),
    ),
    // The same entitlements /api/me reports: the plan of the user's subscription; for a send in
    // a team workspace, the team's (its pool, and whether its payment is past due).
    entitlementsForUser: (claims, workspaceId) => billing.entitlements(claims, workspaceId),
    bus,
    hub,
    clock,
    logger,
    settings: {
      moderation: env.ASSISTANT_MODERATION,
      firstTokenTimeoutMs: env.ASSISTANT_FIRST_TOKEN_TIMEOUT_MS,
      idleTimeoutMs: env.ASSISTANT_IDLE_TIMEOUT_MS,
      maxAnswerMs: env.ASSISTANT_MAX_ANSWER_SECONDS * 1000,
      abandonedAfterMs: env.ASSISTANT_ABANDONED_HOLD_SECONDS * 1000,
      maxAnswerTokens: env.ASSISTANT_MAX_ANSWER_TOKENS,
      historyMessages: env.ASSISTANT_HISTORY_MESSAGES,
      historyChars: env.ASSISTANT_HISTORY_CHARS,
      ratePerMinute: env.ASSISTANT_RATE_LIMIT,
    },
    limiters,
  })

  if (deps.background !== undefined) {
    const { signal, sweepEveryMs } = deps.background
    const sweep = setInterval(() => {
      assistant.releaseAbandonedHolds().catch((error: unknown) => {
        logger.warn('could not sweep abandoned holds', { error })
      })
      attachments.sweepRemovals().catch((error: unknown) => {
        logger.warn('could not remove the objects of deleted attachments', { error })
      })
    }, sweepEveryMs)
    signal.addEventListener('abort', () => clearInterval(sweep), { once: true })
  }

  // Public share links: the page and its JSON count against one limit per client.
  const sharedLinks = {
    sql: deps.db,
    limiter: limiters({ name: 'shared', limit: env.SHARED_LINK_RATE_LIMIT, windowMs: 60_000 }),
    clientKey: deps.clientKey,
  }

  const app = new Hono<AppEnv>({ router: new CachedRouter() })
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
  app.use('/api/*', bodySize({ maxBytes: env.BODY_LIMIT_BYTES, skip: isAttachmentUpload }))
  app.use(
    '/api/*',
    sessionCookie({
      sessions,
      secure: env.SESSION_COOKIE_SECURE,
      maxAgeSeconds: env.SESSION_COOKIE_MAX_AGE_SECONDS,
      clientKey: deps.clientKey,
    }),
  )
  app.use('/api/events', drainHint({ draining: () => readiness.draining }))
  // The answers that grow with the data; small hot ones (`/api/me`) are cheaper sent as they are.
  for (const path of ['/api/remotes', '/api/assistant/*', '/api/console/*']) {
    app.use(path, compressJson())
  }
  app.use(hostAssets({ assets }))
  app.onError(createErrorHandler(logger))
  app.notFound(
    async (c) =>
      (await hostPage(c, {
        assets,
        readSnapshot: () => snapshots.forRequest(c, { everyCanary: true }),
        readPublicSnapshot: () => snapshots.forRequest(c, { everyCanary: true, operator: false }),
        signedOut:
          getCookie(c, sessionCookieName({ secure: env.SESSION_COOKIE_SECURE })) === undefined,
        read: async (path) => app.fetch(firstReadRequest(c.req.raw, path), c.env),
      })) ?? errorResponse(c, new ApiError('not_found')),
  )

  return app
    .route('/api/health', healthRoutes({ clock, version: deps.version ?? BFF_VERSION, readiness }))
    .route(
      '/api/csp-reports',
      cspReportRoutes({ logger, clock, clientKey: deps.clientKey, limiters }),
    )
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
        limiters,
        clientKey: deps.clientKey,
        ...(operatorConsole.countLoads === undefined
          ? {}
          : { onLoads: operatorConsole.countLoads }),
        onReport: operatorConsole.countingErrors(
          createCanaryGuard({ monitor: canaryMonitor, reader: snapshotReader, snapshots, deploy }),
        ),
      }),
    )
    .route(
      '/api/events',
      eventsRoutes({
        hub,
        clock,
        logger,
        heartbeatMs: env.SSE_HEARTBEAT_MS,
        ...(deps.outbox === undefined ? {} : { log: deps.outbox.log }),
      }),
    )
    .route('/api/auth', authRoutes(identity))
    .route('/api/me', meRoutes(identity, deps.outbox === undefined ? {} : { log: deps.outbox.log }))
    .route('/api/assistant/attachments', attachmentRoutes({ attachments }))
    .route('/api/assistant', assistantRoutes({ assistant, logger }))
    .route('/api/assistant', searchRoutes({ sql: deps.db }))
    .route('/api/assistant', shareRoutes({ sql: deps.db }))
    .route('/api/shared', sharedApiRoutes(sharedLinks))
    .route('/shared', sharedPageRoutes(sharedLinks))
    .route(
      '/api/plugins',
      pluginRoutes({
        upstreams: env.PLUGIN_UPSTREAMS,
        tokens: pluginTokens,
        entitlements: (claims) => billing.entitlements(claims),
        client: deps.pluginClient ?? fetchUpstreamClient(fetch),
        timeoutMs: env.PLUGIN_TIMEOUT_MS,
        logger,
      }),
    )
    .route('/.well-known', jwksRoutes({ keys: readPluginKeys }))
    .route('/api/billing', billingRoutes({ billing, webhookSecret: env.STRIPE_WEBHOOK_SECRET }))
    .route(
      '/api/deploy',
      deployRoutes({
        deploy,
        tokens: createDeployTokens({ sql: deps.db, clock }),
        clock,
        ratePerMinute: env.DEPLOY_RATE_LIMIT,
        limiters,
        clientKey: deps.clientKey,
      }),
    )
    .route('/api/console', operatorConsole.routes())
    .route('/api/workspaces', workspaces.routes())
    .route('/api/workspaces', memberCapRoutes({ sql: deps.db, service: workspaces.service }))
    .route('/api/invites', workspaces.inviteRoutes())
}

/** Every route of the BFF, for the typed client: `hc<AppType>(baseUrl)`. */
export type AppType = ReturnType<typeof createApp>
