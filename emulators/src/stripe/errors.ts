// Errors in Stripe's wire shape. The SDK picks its error class from the HTTP status and `type`
// (400/404 → StripeInvalidRequestError, 401 → StripeAuthenticationError, 402 → StripeCardError,
// 400 + idempotency_error → StripeIdempotencyError), so both must be right.

export type StripeErrorType =
  'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error'

export interface StripeErrorBody {
  type: StripeErrorType
  message: string
  code?: string
  param?: string
  decline_code?: string
  doc_url?: string
}

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
    /** Whether an idempotent replay may return this error (Stripe does not save validation failures). */
    readonly replayable = true,
  ) {
    super(body.message)
  }
}

const DOCS = 'https://stripe.com/docs/error-codes'

export function invalidRequest(message: string, param?: string, code?: string): StripeApiError {
  return new StripeApiError(
    400,
    {
      type: 'invalid_request_error',
      message,
      ...(code ? { code, doc_url: `${DOCS}/${code.replace(/_/g, '-')}` } : {}),
      ...(param !== undefined ? { param } : {}),
    },
    false,
  )
}

/** A request that was valid but cannot be carried out in the object's current state. */
export function invalidState(message: string, param?: string): StripeApiError {
  return new StripeApiError(400, {
    type: 'invalid_request_error',
    message,
    ...(param !== undefined ? { param } : {}),
  })
}

export function resourceMissing(kind: string, id: string, param = 'id'): StripeApiError {
  return new StripeApiError(
    404,
    {
      type: 'invalid_request_error',
      code: 'resource_missing',
      doc_url: `${DOCS}/resource-missing`,
      message: `No such ${kind}: '${id}'`,
      param,
    },
    false,
  )
}

export interface Decline {
  code: string
  declineCode?: string
  message: string
}

export function cardError(decline: Decline): StripeApiError {
  return new StripeApiError(402, {
    type: 'card_error',
    code: decline.code,
    message: decline.message,
    ...(decline.declineCode ? { decline_code: decline.declineCode } : {}),
    doc_url: `${DOCS}/${decline.code.replace(/_/g, '-')}`,
  })
}

export function authenticationError(message: string): StripeApiError {
  return new StripeApiError(401, { type: 'invalid_request_error', message }, false)
}

export function idempotencyError(message: string): StripeApiError {
  return new StripeApiError(400, { type: 'idempotency_error', message }, false)
}

export function notFoundUrl(method: string, path: string, supported: string): StripeApiError {
  return new StripeApiError(
    404,
    {
      type: 'invalid_request_error',
      message: `Unrecognized request URL (${method}: ${path}). The Tessera Stripe stand-in implements only: ${supported}.`,
    },
    false,
  )
}
