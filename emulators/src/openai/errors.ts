/** Errors in OpenAI's wire shape, which the `openai` SDK turns into typed exceptions. */
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ArmedFault } from './faults.ts'

export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null }
}

export interface OpenAiErrorInit {
  readonly message: string
  readonly type?: string
  readonly param?: string | null
  readonly code?: string | null
}

/** The `{ error: { message, type, param, code } }` body OpenAI sends with every 4xx and 5xx. */
export function openAiErrorBody(init: OpenAiErrorInit): OpenAiErrorBody {
  return {
    error: {
      message: init.message,
      type: init.type ?? 'invalid_request_error',
      param: init.param ?? null,
      code: init.code ?? null,
    },
  }
}

/** Respond with an OpenAI-shaped error. */
export function openAiError(
  c: Context,
  status: ContentfulStatusCode,
  init: OpenAiErrorInit,
  headers?: Record<string, string>,
): Response {
  return c.json(openAiErrorBody(init), status, headers)
}

/** Thrown inside handlers; `app.onError` renders it, so a handler can stop at any depth. */
export class OpenAiHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly init: OpenAiErrorInit,
  ) {
    super(init.message)
    this.name = 'OpenAiHttpError'
  }
}

/** The response an armed `rate_limit` or `server_error` fault produces; other faults shape the body. */
export function faultErrorResponse(
  c: Context,
  fault: ArmedFault,
  model: string,
): Response | undefined {
  if (fault.type === 'rate_limit') {
    return openAiError(
      c,
      429,
      {
        message: `Rate limit reached for ${model} (local stand-in, injected fault). Please try again in ${fault.retryAfterMs}ms.`,
        type: 'requests',
        code: 'rate_limit_exceeded',
      },
      {
        'retry-after': String(Math.max(1, Math.ceil(fault.retryAfterMs / 1000))),
        'retry-after-ms': String(fault.retryAfterMs),
      },
    )
  }
  if (fault.type === 'server_error') {
    return openAiError(
      c,
      // The fault schema bounds status to 500–599, all of which carry a body.
      fault.status as ContentfulStatusCode,
      {
        message:
          'The server had an error while processing your request (local stand-in, injected fault).',
        type: 'server_error',
      },
    )
  }
  return undefined
}
