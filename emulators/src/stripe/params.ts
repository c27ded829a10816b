// Request parameters are validated with zod against strict schemas, so anything this stand-in
// does not implement is refused loudly with Stripe's own wording ("Received unknown parameter: x")
// and the offending `param`, instead of being silently ignored.
import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'
import { invalidRequest, type StripeApiError } from './errors.ts'
import { formatParam, type FormObject, type FormValue } from './form.ts'

const INTEGER = /^-?\d+$/

export const p = {
  string: () => z.string({ error: 'must be a string' }),
  nonEmpty: () =>
    z.string({ error: 'must be a string' }).check(z.minLength(1, { error: 'must not be empty' })),
  int: (min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) =>
    z.pipe(
      z.pipe(
        z
          .string({ error: 'must be an integer' })
          .check(z.regex(INTEGER, { error: (issue) => `Invalid integer: ${String(issue.input)}` })),
        z.transform(Number),
      ),
      z
        .number()
        .check(
          z.gte(min, { error: `This value must be greater than or equal to ${min}.` }),
          z.lte(max, { error: `This value must be less than or equal to ${max}.` }),
        ),
    ),
  bool: () =>
    z.pipe(
      z.enum(['true', 'false'], { error: (issue) => `Invalid boolean: ${String(issue.input)}` }),
      z.transform((v) => v === 'true'),
    ),
  oneOf: <const T extends readonly [string, ...string[]]>(values: T) =>
    z.enum(values, { error: `must be one of ${values.join(', ')}` }),
  /** Stripe sends `''` for null: an emptyable field is unset with an empty string. */
  emptyable: <T extends z.core.$ZodType>(schema: T) =>
    z.union(
      [
        z.pipe(
          z.literal(''),
          z.transform(() => null),
        ),
        schema,
      ],
      {
        error: 'must be a string or an empty string',
      },
    ),
  metadata: () =>
    z.union(
      [
        z.literal(''),
        z
          .record(z.string().check(z.maxLength(40)), z.string().check(z.maxLength(500)))
          .check(
            z.refine((m) => Object.keys(m).length <= 50, { error: 'can have at most 50 keys' }),
          ),
      ],
      {
        error:
          'must be a hash of string keys (at most 40 characters) to string values (at most 500 characters), or an empty string',
      },
    ),
  expand: () => z.optional(z.array(z.string()).check(z.maxLength(20))),
}

export const listParams = {
  limit: z.optional(p.int(1, 100)),
  starting_after: z.optional(p.nonEmpty()),
  ending_before: z.optional(p.nonEmpty()),
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
export function parseParams<S extends z.core.$ZodType>(schema: S, input: FormObject): z.output<S> {
  const result = z.safeParse(schema, input)
  if (!result.success) throw toStripeError(result.error.issues, input)
  return result.data
}
