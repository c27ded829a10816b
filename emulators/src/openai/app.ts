/**
 * The OpenAI stand-in as a Hono app on Web-standard APIs only: `/v1/chat/completions` (streamed
 * and not), `/v1/models`, `/v1/moderations`, and `/_emulator/*` for tests (faults, request log).
 */
import { Hono } from 'hono'
import type { Context } from 'hono'
import { z } from 'zod/mini'
import { ECHO_PREFIX } from './answer.ts'
import { handleChatCompletion } from './chat-completions.ts'
import { GenerationSlots } from './generation-slots.ts'
import { OpenAiHttpError, faultErrorResponse, openAiError } from './errors.ts'
import { FaultBook, faultInputSchema } from './faults.ts'
import type { ArmedFault, FaultInput } from './faults.ts'
import {
  MODERATION_FLAGGED_CATEGORIES,
  MODERATION_MODELS,
  MODERATION_TEST_PHRASE,
  moderateText,
} from './moderation.ts'
import { RequestLog } from './request-log.ts'
import type { RequestRecord } from './request-log.ts'
import { sleep } from './sleep.ts'
import { issueToError, readJsonBody } from './validation.ts'

export const DEFAULT_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1'] as const

const optionsSchema = z.object({
  models: z._default(z.array(z.string().check(z.minLength(1))).check(z.minLength(1)), [
    ...DEFAULT_MODELS,
  ]),
  // Fast enough that tests do not wait; `npm start` picks a pace people can watch.
  tokensPerSecond: z._default(
    z.union([z.number().check(z.positive()), z.literal(Number.POSITIVE_INFINITY)]),
    200,
  ),
  apiKey: z.optional(z.string().check(z.minLength(1))),
  answerSentences: z._default(z.int().check(z.gte(0), z.lte(50)), 3),
  requestLogSize: z._default(z.int().check(z.gte(1)), 500),
  maxConcurrentAnswers: z._default(z.int().check(z.gte(0)), 0),
})

export interface OpenAiEmulatorOptions {
  /** Model ids served by `/v1/models` and accepted by chat completions. */
  readonly models?: readonly string[]
  /** Streaming pace; Infinity streams as fast as the connection takes it. */
  readonly tokensPerSecond?: number
  /** The one accepted API key; when unset, any non-empty bearer key is accepted. */
  readonly apiKey?: string
  /** Prose sentences in each answer, besides the opening line, list and closing line. */
  readonly answerSentences?: number
  /** How many recent requests `GET /_emulator/requests` keeps. */
  readonly requestLogSize?: number
  /** Drops the connection under a `cut` fault once written bytes are flushed (Node adapter). */
  readonly cutConnection?: (c: Context) => void
  /**
   * Streamed answers generated at once, as a model server's capacity; the others wait with their
   * response open (their first token late). 0 (the default): no limit.
   */
  readonly maxConcurrentAnswers?: number
  /** Called with errors no handler expected, before the OpenAI-shaped 500 goes out. */
  readonly onUnexpectedError?: (error: unknown) => void
}

export interface OpenAiEmulatorControl {
  armFault(input: FaultInput): ArmedFault
  listFaults(): ArmedFault[]
  clearFaults(): void
  requests(): RequestRecord[]
  /** Forget faults and the request log. */
  reset(): void
}

type EmulatorEnv = { Variables: { record: RequestRecord; streaming: boolean } }

const moderationInputSchema = z.union([
  z.string(),
  z.array(z.string()).check(z.minLength(1)),
  z.array(z.strictObject({ type: z.literal('text'), text: z.string() })).check(z.minLength(1)),
])

const moderationRequestSchema = z.strictObject({
  input: z.unknown(),
  model: z.optional(z.string().check(z.minLength(1))),
})

const MODEL_CREATED = 1_715_367_049

function maskKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 5)}***${key.slice(-4)}`
}

function modelObject(id: string) {
  return { id, object: 'model', created: MODEL_CREATED, owned_by: 'tessera-local' }
}

/** Moderation inputs as texts: one per string, or one per multimodal list; images are refused. */
function moderationTexts(input: unknown): string[] {
  if (Array.isArray(input)) {
    const image = input.findIndex(
      (part) =>
        typeof part === 'object' && part !== null && 'type' in part && part.type === 'image_url',
    )
    if (image >= 0) {
      throw new OpenAiHttpError(400, {
        message: 'Image inputs are not supported by the Tessera OpenAI stand-in; send text.',
        param: `input[${image}]`,
        code: 'unsupported_parameter',
      })
    }
  }
  const parsed = moderationInputSchema.safeParse(input)
  if (!parsed.success) throw issueToError(parsed.error, input)
  const value = parsed.data
  if (typeof value === 'string') return [value]
  if (value.every((item) => typeof item === 'string')) return value as string[]
  return [(value as Array<{ text: string }>).map((part) => part.text).join('\n')]
}

/** Build the stand-in; `control` does in-process what `/_emulator/*` does over HTTP. */
export function createOpenAiEmulator(options: OpenAiEmulatorOptions = {}): {
  app: Hono<EmulatorEnv>
  control: OpenAiEmulatorControl
} {
  const settings = optionsSchema.parse({
    models: options.models === undefined ? undefined : [...options.models],
    tokensPerSecond: options.tokensPerSecond,
    apiKey: options.apiKey,
    answerSentences: options.answerSentences,
    requestLogSize: options.requestLogSize,
    maxConcurrentAnswers: options.maxConcurrentAnswers,
  })
  const faults = new FaultBook()
  const log = new RequestLog(settings.requestLogSize)
  const control: OpenAiEmulatorControl = {
    armFault: (input) => faults.arm(faultInputSchema.parse(input)),
    listFaults: () => faults.list(),
    clearFaults: () => faults.clear(),
    requests: () => log.list(),
    reset: () => {
      faults.clear()
      log.clear()
    },
  }
  const deps = {
    models: settings.models,
    tokensPerSecond: settings.tokensPerSecond,
    answerSentences: settings.answerSentences,
    faults,
    log,
    cutConnection: options.cutConnection,
    slots:
      settings.maxConcurrentAnswers > 0
        ? new GenerationSlots(settings.maxConcurrentAnswers)
        : undefined,
  }

  const app = new Hono<EmulatorEnv>()

  app.onError((error, c) => {
    if (error instanceof OpenAiHttpError) return openAiError(c, error.status, error.init)
    options.onUnexpectedError?.(error)
    return openAiError(c, 500, {
      message: `The Tessera OpenAI stand-in failed: ${error instanceof Error ? error.message : String(error)}`,
      type: 'server_error',
    })
  })

  app.notFound((c) =>
    openAiError(c, 404, { message: `Invalid URL (${c.req.method} ${c.req.path})` }),
  )

  app.use('/v1/*', async function recordRequest(c, next) {
    const record = log.open(c.req.method, c.req.path)
    c.set('record', record)
    c.set('streaming', false)
    c.header('x-request-id', record.id)
    await next()
    record.status = c.res.status
    // A streamed body settles its own record when it completes, is cut or is aborted.
    if (!c.get('streaming') || c.res.status >= 400)
      log.finish(record, c.res.status < 400 ? 'completed' : 'rejected')
  })

  app.use('/v1/*', async function requireApiKey(c, next) {
    const match = /^Bearer\s+(\S.*)$/i.exec(c.req.header('authorization') ?? '')
    const key = match?.[1]?.trim()
    if (key === undefined || key === '') {
      return openAiError(c, 401, {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      })
    }
    if (settings.apiKey !== undefined && key !== settings.apiKey) {
      return openAiError(c, 401, {
        message: `Incorrect API key provided: ${maskKey(key)}. The Tessera OpenAI stand-in expects the key it was started with.`,
        code: 'invalid_api_key',
      })
    }
    await next()
  })

  app.post('/v1/chat/completions', (c) =>
    handleChatCompletion(c, deps, c.get('record'), () => c.set('streaming', true)),
  )

  app.get('/v1/models', (c) => c.json({ object: 'list', data: settings.models.map(modelObject) }))

  app.get('/v1/models/:id{.+}', (c) => {
    const id = c.req.param('id')
    if (!settings.models.includes(id)) {
      return openAiError(c, 404, {
        message: `The model '${id}' does not exist`,
        param: 'model',
        code: 'model_not_found',
      })
    }
    return c.json(modelObject(id))
  })

  app.post('/v1/moderations', async (c) => {
    const request = await readJsonBody(c, moderationRequestSchema)
    const model = request.model ?? 'omni-moderation-latest'
    if (!(MODERATION_MODELS as readonly string[]).includes(model)) {
      throw new OpenAiHttpError(404, {
        message: `The model '${model}' does not exist. The stand-in moderates with: ${MODERATION_MODELS.join(', ')}.`,
        param: 'model',
        code: 'model_not_found',
      })
    }
    if (request.input === undefined) {
      throw new OpenAiHttpError(400, {
        message: "Missing required parameter: 'input'.",
        param: 'input',
        code: 'missing_required_parameter',
      })
    }
    const texts = moderationTexts(request.input)
    const record = c.get('record')
    record.model = model
    record.lastUserMessage = texts.join('\n').slice(0, 200)

    const fault = faults.take({ endpoint: 'moderations', model, texts })
    if (fault !== undefined) {
      record.fault = fault.type
      const rejected = faultErrorResponse(c, fault, model)
      if (rejected !== undefined) return rejected
      if (fault.type === 'stall')
        await sleep(fault.ms ?? Number.POSITIVE_INFINITY, c.req.raw.signal)
      if (c.req.raw.signal.aborted) {
        log.finish(record, 'aborted')
        return new Response(null, { status: 499 })
      }
    }
    return c.json({
      id: `modr-${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`,
      model,
      results: texts.map(moderateText),
    })
  })

  app.get('/_emulator', (c) =>
    c.json({
      name: 'tessera-openai-stand-in',
      models: settings.models,
      tokensPerSecond: settings.tokensPerSecond,
      answerSentences: settings.answerSentences,
      apiKeyRequired: settings.apiKey !== undefined,
      moderationTestPhrase: MODERATION_TEST_PHRASE,
      moderationFlaggedCategories: MODERATION_FLAGGED_CATEGORIES,
      echoPrefix: ECHO_PREFIX,
      faultTypes: ['rate_limit', 'server_error', 'stall', 'cut', 'slow'],
    }),
  )

  app.get('/_emulator/faults', (c) => c.json({ faults: faults.list() }))

  app.post('/_emulator/faults', async (c) =>
    c.json(faults.arm(await readJsonBody(c, faultInputSchema)), 201),
  )

  app.delete('/_emulator/faults', (c) => {
    const cleared = faults.list().length
    faults.clear()
    return c.json({ cleared })
  })

  app.delete('/_emulator/faults/:id', (c) => {
    const id = c.req.param('id')
    if (!faults.remove(id))
      return openAiError(c, 404, { message: `No armed fault has the id '${id}'.`, param: 'id' })
    return c.body(null, 204)
  })

  app.get('/_emulator/requests', (c) => {
    const match = c.req.query('match')
    const all = log.list()
    return c.json({
      requests:
        match === undefined ? all : all.filter((record) => record.lastUserMessage?.includes(match)),
    })
  })

  app.post('/_emulator/reset', (c) => {
    control.reset()
    return c.json({ reset: true })
  })

  return { app, control }
}
