/**
 * `POST /v1/chat/completions`, streamed and not, with the faults that tests arm.
 * The stream is a pull-driven ReadableStream: a chunk is produced only when the connection has
 * taken the previous one, so a client that goes away stops generation at once.
 */
import { inSlot } from './generation-slots.ts'
import type { GenerationSlots } from './generation-slots.ts'
import type { Context } from 'hono'
import { z } from 'zod/mini'
import { composeAnswer } from './answer.ts'
import { describeParts, imagePartSchema, imageTokens, messageText, partsOf } from './attachments.ts'
import { OpenAiHttpError, faultErrorResponse } from './errors.ts'
import type { FaultBook } from './faults.ts'
import type { RequestLog, RequestRecord } from './request-log.ts'
import { sleep } from './sleep.ts'
import { countPromptTokens, tokenize } from './tokenizer.ts'
import { readJsonBody } from './validation.ts'

const textPartSchema = z.strictObject({ type: z.literal('text'), text: z.string() })

const messageSchema = z.strictObject({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([
    z.string(),
    z.array(z.union([textPartSchema, imagePartSchema])).check(z.minLength(1)),
  ]),
  name: z.optional(z.string().check(z.minLength(1))),
})

/** The subset of the Chat Completions request Tessera uses; any other field is a loud 400. */
export const chatCompletionRequestSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(messageSchema).check(z.minLength(1)),
  stream: z.nullish(z.boolean()),
  stream_options: z.nullish(
    z.strictObject({
      include_usage: z.optional(z.boolean()),
      include_obfuscation: z.optional(z.boolean()),
    }),
  ),
  max_tokens: z.nullish(z.int().check(z.gte(1))),
  max_completion_tokens: z.nullish(z.int().check(z.gte(1))),
  n: z.nullish(z.literal(1)),
  // Accepted and ignored: answers are deterministic whatever the sampling settings.
  temperature: z.nullish(z.number().check(z.gte(0), z.lte(2))),
  top_p: z.nullish(z.number().check(z.gte(0), z.lte(1))),
  presence_penalty: z.nullish(z.number().check(z.gte(-2), z.lte(2))),
  frequency_penalty: z.nullish(z.number().check(z.gte(-2), z.lte(2))),
  seed: z.nullish(z.int()),
  user: z.nullish(z.string()),
  safety_identifier: z.nullish(z.string()),
  prompt_cache_key: z.nullish(z.string()),
  metadata: z.nullish(z.record(z.string(), z.string())),
  store: z.nullish(z.boolean()),
})

export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>

export interface ChatCompletionDeps {
  readonly models: readonly string[]
  readonly tokensPerSecond: number
  readonly answerSentences: number
  readonly faults: FaultBook
  readonly log: RequestLog
  /** Drop the underlying connection (Node adapter); without it the body stream errors instead. */
  readonly cutConnection: ((c: Context) => void) | undefined
  /** The server's capacity: streamed answers beyond it wait for a slot (unset: no limit). */
  readonly slots?: GenerationSlots | undefined
}

const SYSTEM_FINGERPRINT = 'fp_tessera_local'
const encoder = new TextEncoder()

function usageOf(promptTokens: number, completionTokens: number) {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  }
}

interface Completion {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly tokens: readonly string[]
  readonly finishReason: 'stop' | 'length'
  readonly promptTokens: number
}

type Frame =
  | { readonly kind: 'data'; readonly text: string; readonly contentToken: boolean }
  | { readonly kind: 'cut' }

interface StreamPlan {
  readonly includeUsage: boolean
  readonly tokensPerSecond: number
  /** Milliseconds before the first chunk; Infinity stalls until the client leaves. */
  readonly stallMs: number
  /** Drop the connection after this many content tokens. */
  readonly cutAfter: number | undefined
}

function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`
}

async function* streamFrames(
  completion: Completion,
  plan: StreamPlan,
  signal: AbortSignal,
): AsyncGenerator<Frame> {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(plan.includeUsage ? { usage: null } : {}),
  })

  await sleep(plan.stallMs, signal)
  if (signal.aborted) return
  yield {
    kind: 'data',
    text: sse(chunk({ role: 'assistant', content: '' }, null)),
    contentToken: false,
  }

  // Token i is due at start + (i + 1) * interval; scheduling against the clock keeps the average
  // rate right even when timers fire late or the rate is above 1000 tokens/s.
  const interval = 1000 / plan.tokensPerSecond
  const start = performance.now()
  for (const [index, token] of completion.tokens.entries()) {
    if (plan.cutAfter !== undefined && index >= plan.cutAfter) {
      yield { kind: 'cut' }
      return
    }
    const wait = start + (index + 1) * interval - performance.now()
    if (wait >= 1) await sleep(wait, signal)
    if (signal.aborted) return
    yield { kind: 'data', text: sse(chunk({ content: token }, null)), contentToken: true }
  }
  if (plan.cutAfter !== undefined) {
    // Asked to cut at or beyond the answer's length: cut before the finish chunk and [DONE].
    yield { kind: 'cut' }
    return
  }
  yield { kind: 'data', text: sse(chunk({}, completion.finishReason)), contentToken: false }
  if (plan.includeUsage) {
    const tail = {
      ...chunk({}, null),
      choices: [],
      usage: usageOf(completion.promptTokens, completion.tokens.length),
    }
    yield { kind: 'data', text: sse(tail), contentToken: false }
  }
  yield { kind: 'data', text: 'data: [DONE]\n\n', contentToken: false }
}

/**
 * Turn frames into a body. Pull-driven (highWaterMark 0) so nothing is generated ahead of the
 * connection; `cancel` fires when the client disconnects.
 */
function frameStream(
  frames: AsyncGenerator<Frame>,
  stop: AbortController,
  record: RequestRecord,
  log: RequestLog,
  cut: (() => void) | undefined,
): ReadableStream<Uint8Array> {
  let cancelled = false
  let notifyCancelled = () => {}
  const whenCancelled = new Promise<void>((resolve) => {
    notifyCancelled = resolve
  })
  stop.signal.addEventListener('abort', () => log.finish(record, 'aborted'), { once: true })

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await frames.next()
        if (cancelled) return
        if (stop.signal.aborted) {
          // The request was aborted but the body not yet cancelled: end it so pull is not re-entered.
          cancelled = true
          controller.close()
          return
        }
        if (next.done) {
          log.finish(record, 'completed')
          controller.close()
          return
        }
        const frame = next.value
        if (frame.kind === 'cut') {
          log.finish(record, 'cut')
          if (cut !== undefined) {
            // The adapter closes the socket once what was written is flushed; stay pending until
            // the resulting cancel so the stream is never closed cleanly.
            cut()
            await whenCancelled
          } else {
            controller.error(new Error('connection cut by the stand-in (fault injection)'))
          }
          return
        }
        if (frame.contentToken) record.completionTokens += 1
        controller.enqueue(encoder.encode(frame.text))
      },
      async cancel() {
        cancelled = true
        stop.abort()
        notifyCancelled()
        await frames.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}

/** The last user message, or the last message when no user has spoken. */
function lastUserText(request: ChatCompletionRequest): string {
  const messages = request.messages
  const lastUser =
    [...messages].reverse().find((message) => message.role === 'user') ??
    messages[messages.length - 1]
  return lastUser === undefined ? '' : messageText(lastUser.content)
}

/** Handle one chat completion request. */
export async function handleChatCompletion(
  c: Context,
  deps: ChatCompletionDeps,
  record: RequestRecord,
  markStreaming: () => void,
): Promise<Response> {
  const request = await readJsonBody(c, chatCompletionRequestSchema)
  if (!deps.models.includes(request.model)) {
    throw new OpenAiHttpError(404, {
      message: `The model \`${request.model}\` does not exist or you do not have access to it. The stand-in serves: ${deps.models.join(', ')}.`,
      param: 'model',
      code: 'model_not_found',
    })
  }
  const stream = request.stream === true
  if (!stream && request.stream_options != null) {
    throw new OpenAiHttpError(400, {
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
      code: 'invalid_value',
    })
  }

  const lastUser = lastUserText(request)
  const texts = request.messages.map((message) => ({
    role: message.role,
    text: messageText(message.content),
    name: message.name,
  }))
  const parts = partsOf(request)
  const promptTokens =
    countPromptTokens(texts) + parts.images.reduce((sum, image) => sum + imageTokens(image), 0)
  const seen = describeParts(parts.lastImages, parts.lastExtraTexts)
  const composed = composeAnswer(texts, { sentences: deps.answerSentences })
  const answerTokens = tokenize(seen === '' ? composed : `${seen}\n\n${composed}`)
  const limit = request.max_completion_tokens ?? request.max_tokens ?? Number.POSITIVE_INFINITY
  const tokens = answerTokens.slice(0, limit)
  record.model = request.model
  record.stream = stream
  record.lastUserMessage = lastUser.slice(0, 200)
  record.promptTokens = promptTokens
  record.plannedCompletionTokens = tokens.length

  const fault = deps.faults.take({
    endpoint: 'chat.completions',
    model: request.model,
    texts: [lastUser],
  })
  if (fault !== undefined) record.fault = fault.type
  const faulted = fault === undefined ? undefined : faultErrorResponse(c, fault, request.model)
  if (faulted !== undefined) return faulted

  const completion: Completion = {
    id: `chatcmpl-${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`,
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    tokens,
    finishReason: tokens.length < answerTokens.length ? 'length' : 'stop',
    promptTokens,
  }
  const tokensPerSecond = fault?.type === 'slow' ? fault.tokensPerSecond : deps.tokensPerSecond
  const stallMs = fault?.type === 'stall' ? (fault.ms ?? Number.POSITIVE_INFINITY) : 0
  const cutAfter = fault?.type === 'cut' ? fault.afterTokens : undefined
  const stop = new AbortController()
  c.req.raw.signal.addEventListener('abort', () => stop.abort(), { once: true })
  const cut = deps.cutConnection === undefined ? undefined : () => deps.cutConnection?.(c)

  if (stream) {
    markStreaming()
    const plan: StreamPlan = {
      includeUsage: request.stream_options?.include_usage === true,
      tokensPerSecond,
      stallMs,
      cutAfter,
    }
    const frames = streamFrames(completion, plan, stop.signal)
    const body = frameStream(
      deps.slots === undefined ? frames : inSlot(deps.slots, stop.signal, frames),
      stop,
      record,
      deps.log,
      cut,
    )
    return c.body(body, 200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    })
  }

  // Not streamed: the whole answer arrives after the time it would have taken to generate.
  await sleep(stallMs, stop.signal)
  await sleep((tokens.length / tokensPerSecond) * 1000, stop.signal)
  if (stop.signal.aborted) {
    deps.log.finish(record, 'aborted')
    // Nobody is listening; the status only shows in the request log.
    return new Response(null, { status: 499 })
  }
  const json = JSON.stringify({
    id: completion.id,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: tokens.join(''), refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: completion.finishReason,
      },
    ],
    usage: usageOf(promptTokens, tokens.length),
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  })
  if (cutAfter === undefined) {
    record.completionTokens = tokens.length
    return c.body(json, 200, { 'content-type': 'application/json' })
  }
  // A cut non-streamed answer: headers and half the body, then the connection drops.
  markStreaming()
  const half = json.slice(0, Math.floor(json.length / 2))
  async function* halfBody(): AsyncGenerator<Frame> {
    yield { kind: 'data', text: half, contentToken: false }
    yield { kind: 'cut' }
  }
  return c.body(frameStream(halfBody(), stop, record, deps.log, cut), 200, {
    'content-type': 'application/json',
  })
}
