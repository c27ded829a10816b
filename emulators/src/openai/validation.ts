/** Turns zod failures into the 400s OpenAI sends, naming the offending parameter. */
import '@tessera/contracts/zod-messages'
import type { Context } from 'hono'
import { z } from 'zod/mini'
import { OpenAiHttpError } from './errors.ts'

/** `['messages', 0, 'role']` → `messages[0].role`, the way OpenAI names parameters. */
export function formatParam(path: ReadonlyArray<PropertyKey>): string {
  let out = ''
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`
    else out += out === '' ? String(segment) : `.${String(segment)}`
  }
  return out
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = root
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<PropertyKey, unknown>)[segment]
  }
  return current
}

/** The first issue of a failed parse, as an OpenAI `invalid_request_error`. */
export function issueToError(error: z.core.$ZodError, input: unknown): OpenAiHttpError {
  const issue = error.issues[0]
  if (issue === undefined) return new OpenAiHttpError(400, { message: 'Invalid request.' })
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? ''
    const param = formatParam([...issue.path, key])
    return new OpenAiHttpError(400, {
      message: `Unrecognized request argument supplied: ${param}. The Tessera OpenAI stand-in does not support it.`,
      param,
      code: 'unsupported_parameter',
    })
  }
  const param = formatParam(issue.path)
  if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
    return new OpenAiHttpError(400, {
      message: `Missing required parameter: '${param}'.`,
      param,
      code: 'missing_required_parameter',
    })
  }
  return new OpenAiHttpError(400, {
    message: `Invalid value for '${param || 'body'}': ${issue.message}.`,
    param: param || null,
    code: 'invalid_value',
  })
}

/** Read and validate a JSON body; malformed JSON and schema failures become 400s, never 500s. */
export async function readJsonBody<S extends z.core.$ZodType>(
  c: Context,
  schema: S,
): Promise<z.output<S>> {
  const text = await c.req.text()
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (cause) {
    throw new OpenAiHttpError(400, {
      message: `We could not parse the JSON body of your request. The OpenAI API expects a JSON payload (${cause instanceof Error ? cause.message : 'invalid JSON'}).`,
    })
  }
  const result = z.safeParse(schema, input)
  if (!result.success) throw issueToError(result.error, input)
  return result.data
}
