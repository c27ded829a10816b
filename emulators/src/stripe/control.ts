// `/_emulator/*`: what tests (and curious people) use to steer the stand-in — move the clock, hold
// webhooks and deliver them in a chosen order, resend one, pay a checkout without a browser, reset.
import '@tessera/contracts/zod-messages'
import { Hono } from 'hono'
import { z } from 'zod/mini'
import type { StripeEmulatorControl } from './emulator-control.ts'
import { invalidRequest, resourceMissing } from './errors.ts'

const advanceSchema = z.strictObject({ seconds: z.int().check(z.gte(0)) })
const deliverSchema = z.strictObject({
  eventIds: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
})
const endpointSchema = z.strictObject({
  url: z.nullable(z.url()),
  secret: z.optional(z.string().check(z.minLength(1))),
})
const faultSchema = z.strictObject({
  count: z._default(z.int().check(z.gte(1)), 1),
  method: z.optional(z.enum(['GET', 'POST', 'DELETE'])),
  path: z.optional(z.string().check(z.startsWith('/v1/'))),
  delayMs: z.optional(z.int().check(z.gte(1), z.lte(600_000))),
  status: z.optional(z.union([z.literal(429), z.literal(500), z.literal(503)])),
})
const paySchema = z.strictObject({
  card: z._default(z.string(), '4242424242424242'),
  expiry: z._default(z.string(), '12 / 40'),
  cvc: z._default(z.string(), '123'),
  name: z._default(z.string(), 'Test Customer'),
  email: z.optional(z.string()),
})

async function jsonBody<S extends z.core.$ZodType>(
  request: Request,
  schema: S,
): Promise<z.output<S>> {
  const text = await request.text()
  let value: unknown = {}
  if (text.trim().length > 0) {
    try {
      value = JSON.parse(text)
    } catch {
      // The parse error's own text says little; the caller needs to know it must send JSON.
      throw invalidRequest('The /_emulator API takes a JSON body.')
    }
  }
  const result = z.safeParse(schema, value)
  if (!result.success) {
    const issue = result.error.issues[0]
    const param = issue?.path.join('.') ?? ''
    throw invalidRequest(`Invalid ${param || 'body'}: ${issue?.message ?? 'invalid'}`, param)
  }
  return result.data
}

export function createControlApi(control: StripeEmulatorControl): Hono {
  const api = new Hono()

  api.get('/state', (c) => c.json(control.state()))

  api.get('/clock', (c) => c.json({ now: control.now() }))

  api.post('/clock/advance', async (c) => {
    const { seconds } = await jsonBody(c.req.raw, advanceSchema)
    const steps = control.advanceClock(seconds)
    return c.json({ now: control.now(), steps })
  })

  api.get('/events', (c) => {
    const type = c.req.query('type')
    return c.json({
      data: control.events().filter((e) => type === undefined || e.event.type === type),
    })
  })

  api.post('/events/:id/resend', async (c) => {
    const id = c.req.param('id')
    if (!control.events().some((e) => e.event.id === id)) throw resourceMissing('event', id)
    return c.json(await control.resend(id))
  })

  api.post('/deliver', async (c) => {
    const { eventIds } = await jsonBody(c.req.raw, deliverSchema)
    const known = new Set(control.events().map((e) => e.event.id))
    const unknown = eventIds.find((id) => !known.has(id))
    if (unknown) throw resourceMissing('event', unknown, 'eventIds')
    return c.json({ deliveries: await control.deliver(eventIds) })
  })

  api.post('/webhooks/pause', (c) => {
    control.pauseWebhooks()
    return c.json({ paused: true })
  })

  api.post('/webhooks/resume', (c) => {
    control.resumeWebhooks()
    return c.json({ paused: false })
  })

  api.post('/webhooks/endpoint', async (c) => {
    const body = await jsonBody(c.req.raw, endpointSchema)
    if (body.url !== null && !body.secret) {
      throw invalidRequest('A webhook endpoint needs a signing secret.', 'secret')
    }
    control.setWebhookEndpoint(
      body.url === null ? null : { url: body.url, secret: body.secret ?? '' },
    )
    return c.json({ url: body.url })
  })

  api.post('/checkout/:id/pay', async (c) => {
    const body = await jsonBody(c.req.raw, paySchema)
    const result = control.payCheckoutSession(c.req.param('id'), {
      number: body.card,
      expiry: body.expiry,
      cvc: body.cvc,
      name: body.name,
      ...(body.email !== undefined ? { email: body.email } : {}),
    })
    if (!result.ok) {
      return c.json(
        {
          error: {
            type: result.rejection.decline ? 'card_error' : 'invalid_request_error',
            code: result.rejection.decline?.code,
            message: result.rejection.message,
            param: result.rejection.field,
          },
        },
        result.rejection.decline ? 402 : 400,
      )
    }
    return c.json({ redirectUrl: result.redirectUrl, session: result.session })
  })

  api.post('/faults', async (c) => {
    const body = await jsonBody(c.req.raw, faultSchema)
    if (body.delayMs === undefined && body.status === undefined) {
      throw invalidRequest('A fault needs a delayMs, a status, or both.', 'status')
    }
    control.injectFault({
      count: body.count,
      ...(body.method ? { method: body.method } : {}),
      ...(body.path ? { path: body.path } : {}),
      ...(body.delayMs ? { delayMs: body.delayMs } : {}),
      ...(body.status ? { status: body.status } : {}),
    })
    return c.json({ injected: body })
  })

  api.delete('/faults', (c) => {
    control.clearFaults()
    return c.json({ cleared: true })
  })

  api.post('/reset', (c) => {
    control.reset()
    return c.json({ reset: true })
  })

  return api
}
