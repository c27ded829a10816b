import {
  ApiError,
  checkoutBodySchema,
  checkoutSessionIdSchema,
  reconcileBodySchema,
  seatPreviewQuerySchema,
} from '@tessera/contracts'
import type {
  CheckoutStatus,
  PlansResponse,
  RedirectResponse,
  SeatPreview,
} from '@tessera/contracts'
import { Hono } from 'hono'
import type { MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import type { AppEnv } from '../../http/app-env.ts'
import { validationFailed } from '../../platform/errors.ts'
import { jsonBody, requireJson } from '../../http/middleware/json-body.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { ADMIN_SIGNATURE_HEADER, checkAdminSignature } from './admin-signature.ts'
import type { Billing, BillingUser } from './billing.ts'
import type { ActiveSession } from '../identity/sessions.ts'

/** Where Stripe delivers events (the stand-in and `stripe listen` are pointed here). */
export const BILLING_WEBHOOK_PATH = '/api/billing/webhook'
/** The operator's reconcile trigger (`npm run billing:reconcile` against a running BFF). */
export const BILLING_RECONCILE_PATH = '/api/billing/reconcile'
/**
 * Routes that authenticate the request by a signature over its body, never by the session
 * cookie: a cross-site page cannot forge the signature, so CSRF does not apply to them.
 */
export const signatureAuthenticatedPaths: readonly string[] = [
  BILLING_WEBHOOK_PATH,
  BILLING_RECONCILE_PATH,
]

export interface BillingRouteDeps {
  billing: Billing
  /** The webhook signing secret; operator requests are signed with a key derived from it. */
  webhookSecret: string
}

const jsonMediaType = /^application\/([\w.-]+\+)?json$/i

const userOf = (session: ActiveSession): BillingUser => ({
  userId: session.userId,
  email: session.user.email,
  claims: session.claims,
  sessionId: session.id,
})

/** A POST that takes no input: no body, or an empty JSON object. */
function noInput(): MiddlewareHandler {
  return async function noInput(c, next) {
    const text = await c.req.text()
    if (text.trim() === '') return next()
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? ''
    if (!jsonMediaType.test(mediaType)) throw new ApiError('unsupported_media_type')
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      // The parse error's text depends on the engine; the issue says what matters.
      throw validationFailed([{ path: '', message: 'The body is not valid JSON.' }])
    }
    const parsed = z.strictObject({}).safeParse(value)
    if (!parsed.success) throw validationFailed(parsed.error)
    return next()
  }
}

/** A JSON body signed by Stripe (or the operator): its exact bytes are what was signed. */
function rawJsonBody(): MiddlewareHandler {
  return async function rawJsonBody(c, next) {
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? ''
    if (!jsonMediaType.test(mediaType)) throw new ApiError('unsupported_media_type')
    return next()
  }
}

const signatureHeader = (name: string) =>
  z
    .string({ error: `The ${name} header is missing.` })
    .check(
      z.minLength(1, `The ${name} header is missing.`),
      z.maxLength(4096, `The ${name} header is too long.`),
    )
// Built once: making a zod schema costs more than using it, and this runs on every delivery.
const stripeSignatureHeader = signatureHeader('Stripe-Signature')

/** Plans, the user's subscription, checkout and portal at Stripe, Stripe's webhooks. */
export function billingRoutes(deps: BillingRouteDeps) {
  const { billing } = deps
  return (
    new Hono<AppEnv>()
      .use(noStore())
      .get('/plans', async (c) => {
        c.header('Vary', 'Cookie')
        const session = await c.var.auth.current()
        const current =
          session === null ? null : (await billing.entitlementsOfSession(session)).plan
        const body: PlansResponse = { plans: billing.plans(), current }
        return c.json(body, 200)
      })
      .get('/subscription', async (c) => {
        const session = await c.var.auth.require()
        // The session's current workspace: a team's subscription as the caller's role sees it.
        const workspaceId = await billing.currentWorkspaceOf(session)
        return c.json(await billing.subscription(session.claims, workspaceId), 200)
      })
      .post('/checkout', requireJson(), jsonBody(checkoutBodySchema), async (c) => {
        const { plan, workspaceId } = c.req.valid('json')
        const session = await c.var.auth.require()
        const body: RedirectResponse = await billing.startCheckout(
          userOf(session),
          plan,
          workspaceId,
        )
        return c.json(body, 200)
      })
      // What the current team's next invoice would be with `quantity` seats (owners, admins).
      .get(
        '/seats/preview',
        validator('query', (value) => {
          const parsed = seatPreviewQuerySchema.safeParse(value)
          if (!parsed.success) throw validationFailed(parsed.error)
          return parsed.data
        }),
        async (c) => {
          const session = await c.var.auth.require()
          const body: SeatPreview = await billing.previewSeats(
            session,
            c.req.valid('query').quantity,
          )
          return c.json(body, 200)
        },
      )
      .get(
        '/checkout/:sessionId',
        validator('param', (value) => {
          const parsed = z.object({ sessionId: checkoutSessionIdSchema }).safeParse(value)
          if (!parsed.success) throw validationFailed(parsed.error)
          return parsed.data
        }),
        async (c) => {
          const { sessionId } = c.req.valid('param')
          const session = await c.var.auth.require()
          const body: CheckoutStatus = await billing.checkoutStatus(userOf(session), sessionId)
          return c.json(body, 200)
        },
      )
      .post('/portal', noInput(), async (c) => {
        const session = await c.var.auth.require()
        const body: RedirectResponse = await billing.openPortal(userOf(session))
        return c.json(body, 200)
      })
      // Stripe calls this, not a browser: no cookie, no CSRF header; the signature is the proof.
      .post('/webhook', rawJsonBody(), async (c) => {
        const signature = stripeSignatureHeader.safeParse(c.req.header('stripe-signature'))
        if (!signature.success) {
          throw new ApiError('webhook_signature_invalid', {
            details: { reason: signature.error.issues[0]?.message },
          })
        }
        // The exact bytes Stripe signed: parsed only after the signature checks out.
        const raw = await c.req.text()
        const result = await billing.receiveWebhook(raw, signature.data)
        return c.json({ received: true, eventId: result.eventId, outcome: result.outcome }, 200)
      })
      // The operator's reconcile, signed like a webhook (services/billing/admin-signature.ts).
      .post('/reconcile', rawJsonBody(), async (c) => {
        const raw = await c.req.text()
        const problem = await checkAdminSignature(
          deps.webhookSecret,
          raw,
          c.req.header(ADMIN_SIGNATURE_HEADER),
          // Real time, as for Stripe's signatures: the app clock may be a test's.
          Math.floor(Date.now() / 1000),
        )
        if (problem !== null) throw new ApiError('forbidden', { details: { reason: problem } })
        let value: unknown
        try {
          value = JSON.parse(raw)
        } catch {
          throw validationFailed([{ path: '', message: 'The body is not valid JSON.' }])
        }
        const body = reconcileBodySchema.safeParse(value)
        if (!body.success) throw validationFailed(body.error)
        return c.json(await billing.reconcile({ dryRun: body.data.dryRun }), 200)
      })
  )
}
