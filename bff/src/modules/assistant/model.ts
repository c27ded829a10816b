import type { AssistantModel, ErrorCode } from '@tessera/contracts'
import OpenAI from 'openai'
import type { PromptMessage } from './estimate.ts'

/** One chunk of a streamed answer, as the BFF needs it. */
export interface AnswerChunk {
  /** Text to append; empty for role, finish and usage chunks. */
  text: string
  finishReason: string | null
  usage: { promptTokens: number; completionTokens: number } | null
}

export interface AnswerRequest {
  model: AssistantModel
  messages: PromptMessage[]
  maxAnswerTokens: number
  /** The plan sells "Priority answers": the request may use the lane kept for it (model-lanes.ts). */
  priority?: boolean
}

/** The model behind the assistant: any server that speaks OpenAI's Chat Completions. */
export interface ChatModel {
  /** Whether the moderation model flags the text. */
  moderate(text: string, signal?: AbortSignal): Promise<boolean>
  /**
   * Starts an answer; resolves once the server has answered with a stream (rejects on a refusal:
   * 429, 5xx, a connection that failed). Aborting `signal` ends the request and the iteration.
   */
  answer(request: AnswerRequest, signal: AbortSignal): Promise<AsyncIterable<AnswerChunk>>
}

export interface ChatModelOptions {
  baseURL: string
  apiKey: string
  /** The server's name for a catalogue model, where it differs. */
  modelMap?: Readonly<Record<string, string>>
  /** How long to wait for the response headers (the answer's own first-token timer is longer-lived). */
  timeoutMs: number
  fetch?: typeof fetch
}

/** Moderation is one short, idempotent request: one retry is cheap and hides a blip. */
const MODERATION_RETRIES = 1
const MODERATION_MODEL = 'omni-moderation-latest'
const MODERATION_TIMEOUT_MS = 10_000

/** The `openai` SDK against `baseURL` (OpenAI, or an OpenAI-compatible server). */
export function createChatModel(options: ChatModelOptions): ChatModel {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    // A streamed answer is never retried behind the person's back: the page offers Retry, and
    // the SDK would wait out a 429's retry-after while the first-token timer runs.
    maxRetries: 0,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  })
  const modelMap = options.modelMap ?? {}
  return {
    async moderate(text, signal) {
      const result = await client.moderations.create(
        { model: MODERATION_MODEL, input: text },
        {
          maxRetries: MODERATION_RETRIES,
          // Moderation happens before the stream opens: a person waits on it with no answer yet.
          timeout: Math.min(options.timeoutMs, MODERATION_TIMEOUT_MS),
          ...(signal === undefined ? {} : { signal }),
        },
      )
      return result.results.some((item) => item.flagged)
    },

    async answer(request, signal) {
      const stream = await client.chat.completions.create(
        {
          model: modelMap[request.model] ?? request.model,
          messages: request.messages.map(toOpenAiMessage),
          stream: true,
          stream_options: { include_usage: true },
          max_completion_tokens: request.maxAnswerTokens,
        },
        { signal },
      )
      return (async function* chunks(): AsyncGenerator<AnswerChunk> {
        for await (const chunk of stream) {
          const choice = chunk.choices[0]
          yield {
            text: choice?.delta?.content ?? '',
            finishReason: choice?.finish_reason ?? null,
            usage:
              chunk.usage == null
                ? null
                : {
                    promptTokens: chunk.usage.prompt_tokens,
                    completionTokens: chunk.usage.completion_tokens,
                  },
          }
        }
      })()
    },
  }
}

/** A prompt message as Chat Completions takes it: attachments become text and image parts. */
function toOpenAiMessage(message: PromptMessage): OpenAI.ChatCompletionMessageParam {
  if (message.parts === undefined || message.parts.length === 0 || message.role !== 'user')
    return { role: message.role, content: message.content }
  return {
    role: 'user',
    content: [
      { type: 'text', text: message.content },
      ...message.parts.map((part): OpenAI.ChatCompletionContentPart =>
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : // Low detail: a known, small cost per image (estimate.ts), enough to describe it.
            { type: 'image_url', image_url: { url: part.dataUrl, detail: 'low' } },
      ),
    ],
  }
}

/** A failure of the model as the catalogue names it, with the wait a 429 asked for. */
export interface ModelFailure {
  code: ErrorCode
  retryAfterSeconds?: number
  /** A failure that says our configuration is wrong (key, model name), not that the server is busy. */
  misconfigured: boolean
}

/** Seconds from `retry-after-ms` or `retry-after` (seconds or an HTTP date); undefined without. */
export function retryAfterSecondsOf(
  headers: Headers | undefined,
  now = Date.now(),
): number | undefined {
  if (headers === undefined) return undefined
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '')
  if (Number.isFinite(ms) && ms >= 0) return Math.max(1, Math.ceil(ms / 1000))
  const value = headers.get('retry-after')
  if (value === null) return undefined
  const seconds = Number.parseFloat(value)
  if (Number.isFinite(seconds) && seconds >= 0) return Math.max(1, Math.ceil(seconds))
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - now) / 1000))
}

/**
 * Maps a failure of a model request that never streamed (the refusal or the connection) to the
 * catalogue. A failure in the middle of a stream is `answer_interrupted` (see the answer loop).
 */
export function modelFailureOf(error: unknown): ModelFailure {
  if (error instanceof OpenAI.APIConnectionTimeoutError)
    return { code: 'upstream_timeout', misconfigured: false }
  if (error instanceof OpenAI.APIConnectionError)
    return { code: 'upstream_unavailable', misconfigured: false }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    if (error.status === 429) {
      const retryAfterSeconds = retryAfterSecondsOf(error.headers)
      return {
        code: 'model_busy',
        misconfigured: false,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      }
    }
    if (error.status === 408) return { code: 'upstream_timeout', misconfigured: false }
    // A 4xx other than those is a request this BFF should not have made: a wrong key, a model
    // the server does not have, a parameter it does not know. People can only retry later.
    return { code: 'upstream_unavailable', misconfigured: error.status < 500 }
  }
  return { code: 'upstream_unavailable', misconfigured: false }
}
