// Request parameters are validated with zod against strict schemas, so anything this stand-in
// does not implement is refused loudly with Stripe's own wording ("Received unknown parameter: x")
// and the offending `param`, instead of being silently ignored.
import { z } from 'zod'
import { invalidRequest, type StripeApiError } from './errors.ts'
import { formatParam, type FormObject, type FormValue } from './form.ts'

const INTEGER = /^-?\d+$/

export const p = {
  string: () => z.string({ error: 'must be a string' }),
  nonEmpty: () => z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }),
  int: (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
    z
      .string({ error: 'must be an integer' })
      .regex(INTEGER, { error: (issue) => `Invalid integer: ${String(issue.input)}` })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(min, { error: `This value must be greater than or equal to ${min}.` })
          .max(max, { error: `This value must be less than or equal to ${max}.` }),
      ),
  bool: () =>
    z
      .enum(['true', 'false'], { error: (issue) => `Invalid boolean: ${String(issue.input)}` })
      .transform((v) => v === 'true'),
  oneOf: <const T extends readonly [string, ...string[]]>(values: T) =>
    z.enum(values, { error: `must be one of ${values.join(', ')}` }),
  /** Stripe sends `''` for null: an emptyable field is unset with an empty string. */
  emptyable: <T extends z.ZodType>(schema: T) =>
    z.union([z.literal('').transform(() => null), schema], {
      error: 'must be a string or an empty string',
    }),
  metadata: () =>
    z.union(
      [
        z.literal(''),
        z
          .record(z.string().max(40), z.string().max(500))
          .refine((m) => Object.keys(m).length <= 50, { error: 'can have at most 50 keys' }),
      ],
      {
        error:
          'must be a hash of string keys (at most 40 characters) to string values (at most 500 characters), or an empty string',
      },
    ),
  expand: () => z.array(z.string()).max(20).optional(),
}

export const listParams = {
  limit: p.int(1, 100).optional(),
  starting_after: p.nonEmpty().optional(),
  ending_before: p.nonEmpty().optional(),
  expand: p.expand(),
}

export const retrieveParams = z.strictObject({ expand: p.expand() })

function valueAt(input: FormObject, path: readonly PropertyKey[]): FormValue | undefined {
  let node: FormValue | undefined = input
  for (const segment of path) {
    if (node === undefined || typeof node === 'string') return undefined
    node = Array.isArray(node) ? node[Number(segment)] : node[String(segment)]
  }
  return node
}

function toStripeError(issues: readonly z.core.$ZodIssue[], input: FormObject): StripeApiError {
  // Stripe names an unknown parameter before anything else, then a missing one.
  const unknown = issues.find((i) => i.code === 'unrecognized_keys')
  if (unknown && unknown.code === 'unrecognized_keys') {
    const param = formatParam([...unknown.path.map(String), unknown.keys[0] ?? ''])
    return invalidRequest(`Received unknown parameter: ${param}`, param, 'parameter_unknown')
  }
  const missing = issues.find(
    (i) => i.code === 'invalid_type' && valueAt(input, i.path) === undefined,
  )
  if (missing) {
    const param = formatParam(missing.path.map(String))
    return invalidRequest(`Missing required param: ${param}.`, param, 'parameter_missing')
  }
  const first = issues[0]
  const param = formatParam((first?.path ?? []).map(String))
  const message = first?.message ?? 'is invalid'
  if (message.startsWith('Invalid integer')) {
    return invalidRequest(message, param, 'parameter_invalid_integer')
  }
  if (message.startsWith('This value must be')) {
    // An integer out of its range (a quantity of 0): Stripe's code for a bad integer.
    return invalidRequest(`Invalid ${param}: ${message}`, param, 'parameter_invalid_integer')
  }
  return invalidRequest(
    message.startsWith('Invalid ') ? message : `Invalid ${param}: ${message}`,
    param,
  )
}

/** Validates request params against a strict schema, throwing a Stripe-shaped 400 on failure. */
export function parseParams<S extends z.ZodType>(schema: S, input: FormObject): z.output<S> {
  const result = schema.safeParse(input)
  if (!result.success) throw toStripeError(result.error.issues, input)
  return result.data
}
