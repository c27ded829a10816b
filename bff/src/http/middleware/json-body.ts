import { ApiError } from '@tessera/contracts'
import type { MiddlewareHandler } from 'hono'
import { validator } from 'hono/validator'
import { z } from 'zod/mini'
import { validationFailed } from '../../platform/errors.ts'

const jsonMediaType = /^application\/([\w.-]+\+)?json$/i

/**
 * Requires a JSON body: another media type is `unsupported_media_type` (415), unparseable
 * JSON is `validation_failed` (422). Runs before `jsonBody`, which reuses the parsed body.
 */
export function requireJson(): MiddlewareHandler {
  return async function requireJson(c, next) {
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? ''
    if (!jsonMediaType.test(mediaType)) throw new ApiError('unsupported_media_type')
    try {
      await c.req.json()
    } catch {
      // The parse error's text depends on the engine; the issue says what matters.
      throw validationFailed([{ path: '', message: 'The body is not valid JSON.' }])
    }
    return next()
  }
}

// Which schema each `jsonBody` middleware checks, so the routes' list can say what a route takes.
const bodySchemas = new WeakMap<object, z.core.$ZodType>()

/** Validates the JSON body with a contracts schema; its type flows to handlers and `hc`. */
export function jsonBody<T extends z.core.$ZodType>(schema: T) {
  const middleware = validator('json', (value: unknown): z.output<T> => {
    const parsed = z.safeParse(schema, value)
    if (!parsed.success) throw validationFailed(parsed.error)
    return parsed.data
  })
  bodySchemas.set(middleware, schema)
  return middleware
}

/**
 * The schema a handler of `app.routes` validates the JSON body with, when it is a `jsonBody`
 * middleware: the fuzz sweep generates each route's bodies from it.
 */
export function bodySchemaOf(handler: object): z.core.$ZodType | undefined {
  return bodySchemas.get(handler)
}
