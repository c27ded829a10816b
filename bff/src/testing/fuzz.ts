// Test support for the fuzz sweep (http/fuzz.test.ts): the BFF's /api routes as the Hono app lists
// them, and fast-check arbitraries for requests to each, built from the route's zod schemas.
// Never imported by the app.
import fc from 'fast-check'
import type { Hono } from 'hono'
import type { z } from 'zod/mini'
import { bodySchemaOf } from '../http/middleware/json-body.ts'

/** One `/api` route: a method and a path pattern, and the schemas known for its input. */
export interface ApiRoute {
  method: string
  path: string
  /** The JSON body's schema, found on the route's `jsonBody` middleware. */
  body?: z.core.$ZodType
  /** The query's schema, when the route reads one (see `querySchemas`). */
  query?: z.core.$ZodType
  /** Path parameters (`:id`), in order. */
  params: string[]
  /** The media type of its valid bodies, when it is not JSON's. */
  contentType?: string
}

/**
 * Lists every `/api` route of the app (not its middleware), with the body schema its `jsonBody`
 * middleware checks: a route added to the app is in the list without anyone writing it down.
 */
export function listApiRoutes(
  app: Pick<Hono, 'routes'>,
  querySchemas: Record<string, z.core.$ZodType> = {},
): ApiRoute[] {
  const routes = new Map<string, ApiRoute>()
  for (const { method, path, handler } of app.routes) {
    if (method === 'ALL' || !path.startsWith('/api') || path.endsWith('*')) continue
    const key = `${method} ${path}`
    let route = routes.get(key)
    if (route === undefined) {
      route = {
        method,
        path,
        params: [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1] ?? ''),
      }
      const query = querySchemas[key]
      if (query !== undefined) route.query = query
      routes.set(key, route)
    }
    const body = bodySchemaOf(handler)
    if (body !== undefined) route.body = body
  }
  // Deletions last, so the routes before them find the things they would delete.
  const rank = (route: ApiRoute) => (route.method === 'DELETE' ? 1 : 0)
  return [...routes.values()].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.path === b.path ? a.method.localeCompare(b.method) : a.path.localeCompare(b.path)),
  )
}

// zod 4 keeps a schema's shape in `_zod.def`; this reads just what generation needs.
interface LooseDef {
  type: string
  [key: string]: unknown
}
interface CheckDef {
  check: string
  format?: string
  pattern?: RegExp
  minimum?: number
  maximum?: number
  value?: number
  inclusive?: boolean
}
const defOf = (schema: unknown) => (schema as z.core.$ZodType)._zod.def as unknown as LooseDef
const checksOf = (def: LooseDef): CheckDef[] =>
  ((def.checks as { _zod: { def: CheckDef } }[] | undefined) ?? []).map((check) => check._zod.def)

/** Strings no field should take: control characters, broken UTF-16, markup, paths, SQL. */
export const hostileStrings: readonly string[] = [
  '\u0000',
  'hello\u0000world',
  '\ud800',
  'half \udfff a pair',
  '\u0007\u001b[31m\u007f',
  '\u202eevil\u202c',
  "' OR '1'='1'; --",
  '../../etc/passwd',
  '%00%2e%2e%2f',
  '<script>alert(1)</script>',
  '__proto__',
  '   ',
  '',
  'Z̸̢̛a̶l̵g̷o̴ 👩🏽‍💻 ﷽',
]

/** A 64 KiB string: at the body limit once quoted, so over it as part of any body. */
const huge = 'x'.repeat(64 * 1024)

/** Nested arrays or objects, `depth` deep. */
function nested(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 0
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value }
  return value
}

/** JSON values of every wrong kind: hostile strings, huge and odd numbers, deep nesting. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  // Text with characters that are not text is what most often slipped through: weigh it most.
  { weight: 4, arbitrary: fc.constantFrom(...hostileStrings) },
  fc.constantFrom(
    huge,
    'y'.repeat(60_000),
    nested(500, 'array'),
    nested(300, 'object'),
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    2 ** 64,
    -(2 ** 53) - 2,
    1.5,
    -1,
    0,
    true,
    null,
    [],
    {},
    { __proto__: { polluted: true } },
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double(),
  fc.integer(),
  fc.array(fc.anything({ maxDepth: 2 }), { maxLength: 5 }),
)

/** A pattern without its lookaheads, which fast-check cannot generate from. */
function withoutLookaheads(source: string): string {
  let out = ''
  for (let i = 0; i < source.length; i++) {
    if (source[i] === '\\') {
      out += source.slice(i, i + 2)
      i += 1
    } else if (source.startsWith('(?!', i) || source.startsWith('(?=', i)) {
      let depth = 0
      for (; i < source.length; i++) {
        if (source[i] === '\\') i += 1
        else if (source[i] === '(') depth += 1
        else if (source[i] === ')' && --depth === 0) break
      }
    } else out += source[i]
  }
  return out
}

/** Strings matching `pattern`; lookaheads are applied as a filter. */
function matching(pattern: RegExp): fc.Arbitrary<string> {
  const source = withoutLookaheads(pattern.source)
  if (source === pattern.source) return fc.stringMatching(pattern)
  return fc.stringMatching(new RegExp(source, pattern.flags)).filter((value) => pattern.test(value))
}

function stringArbitrary(def: LooseDef): fc.Arbitrary<string> {
  const checks = checksOf(def)
  const format = (def.format as string | undefined) ?? checks.find((c) => c.format)?.format
  const pattern = checks.find((c) => c.format === 'regex')?.pattern
  const min = checks.find((c) => c.check === 'min_length')?.minimum ?? 0
  const max = Math.min(checks.find((c) => c.check === 'max_length')?.maximum ?? 200, 400)
  if (format === 'email') return fc.emailAddress()
  if (format === 'url') return fc.webUrl({ withQueryParameters: false, withFragments: false })
  if (format === 'uuid' || format === 'guid') return fc.uuid()
  if (format === 'datetime')
    return fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((date) => date.toISOString())
  if (pattern !== undefined)
    return matching(pattern).filter((value) => value.length <= Math.max(max, 1))
  return fc.oneof(
    fc.string({ minLength: min, maxLength: max }),
    fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 60) }),
  )
}

function numberArbitrary(def: LooseDef): fc.Arbitrary<number> {
  const checks = checksOf(def)
  const integer =
    def.format === 'safeint' || checks.some((c) => c.check === 'number_format' && c.format)
  const min = checks.find((c) => c.check === 'greater_than')?.value
  const max = checks.find((c) => c.check === 'less_than')?.value
  if (integer)
    return fc.integer({
      min: Math.max(min ?? -1_000_000, Number.MIN_SAFE_INTEGER),
      max: Math.min(max ?? 1_000_000, Number.MAX_SAFE_INTEGER),
    })
  return fc.double({ min: min ?? -1e6, max: max ?? 1e6, noNaN: true, noDefaultInfinity: true })
}

/**
 * Values a schema takes (most of the time: refinements are not read, so some are refused). Only
 * the input side counts: a pipe is generated from its input, a default may be left out.
 */
export function arbitraryOf(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema)
  if (depth > 8) return fc.constant(null)
  const inner = (key: string) => arbitraryOf(def[key], depth + 1)
  switch (def.type) {
    case 'string':
      return stringArbitrary(def)
    case 'number':
      return numberArbitrary(def)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]))
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>))
    case 'optional':
      return fc.option(inner('innerType'), { nil: undefined, freq: 4 })
    case 'nullable':
      return fc.option(inner('innerType'), { nil: null, freq: 4 })
    case 'default':
    case 'prefault':
      return fc.option(inner('innerType'), { nil: undefined, freq: 3 })
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return inner('innerType')
    case 'pipe':
      return inner('in')
    case 'lazy':
      return arbitraryOf((def.getter as () => unknown)(), depth + 1)
    case 'union':
      return fc.oneof(...(def.options as unknown[]).map((option) => arbitraryOf(option, depth + 1)))
    case 'array': {
      const checks = checksOf(def)
      const minLength = checks.find((c) => c.check === 'min_length')?.minimum ?? 0
      const maxLength = Math.min(checks.find((c) => c.check === 'max_length')?.maximum ?? 5, 5)
      return fc.array(inner('element'), { minLength: Math.min(minLength, maxLength), maxLength })
    }
    case 'record':
      return fc.dictionary(
        arbitraryOf(def.keyType, depth + 1) as fc.Arbitrary<string>,
        inner('valueType'),
        { maxKeys: 3 },
      )
    case 'object': {
      const shape = def.shape as Record<string, unknown>
      const fields = Object.fromEntries(
        Object.entries(shape).map(([key, value]) => [key, arbitraryOf(value, depth + 1)]),
      )
      return fc.record(fields).map((record) =>
        // An optional field left out is absent, not `undefined`.
        Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)),
      )
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

/** A schema's value with one field (or the whole value) swapped for a hostile one. */
function mutated(schema: z.core.$ZodType): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      arbitraryOf(schema),
      hostileValue,
      fc.nat(),
      fc.nat({ max: 4 }).map((n) => n === 0),
    )
    .map(([value, hostile, index, extraKey]) => {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return hostile
      const keys = Object.keys(value)
      const key = extraKey || keys.length === 0 ? 'unexpected' : (keys[index % keys.length] ?? '')
      return { ...value, [key]: hostile }
    })
}

/** Bodies no JSON route should take, sent as they are. */
export const rawHostileBodies: readonly (string | Uint8Array)[] = [
  '',
  '{',
  '{"a":',
  'null',
  '[]',
  '"text"',
  '1e999',
  '{"a":1e999}',
  '\u0000',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  `${'{"a":'.repeat(10_000)}0${'}'.repeat(10_000)}`,
  `{"a":"${'x'.repeat(70_000)}"}`,
  '{"__proto__":{"polluted":true}}',
  '{"a":1,"a":2}',
  new Uint8Array([0xff, 0xfe, 0x00, 0x7b, 0x22]),
  new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
]

/** A string with each lone surrogate replaced, as a client must before percent-encoding it. */
function wellFormed(value: string): string {
  return value.replace(/[\ud800-\udfff]/gu, '\ufffd')
}

/** What kind of case a request is, for the report. */
export type CaseKind = 'valid' | 'hostile' | 'raw' | 'media'

/** A path parameter: one the harness knows (a conversation the user has), or a literal. */
export type ParamValue = { known: number } | { literal: string }

export interface FuzzCase {
  kind: CaseKind
  params: ParamValue[]
  query: Record<string, string>
  /** undefined: no body. */
  body: string | Uint8Array | undefined
  contentType: string | undefined
  /**
   * Who sends it: nobody signed in, the user whose conversations the known parameters name, or
   * another signed-in user (who must not reach them).
   */
  session: 'none' | 'owner' | 'other'
}

const contentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=utf-16',
  'application/xml',
  undefined,
]

/** Values of a path parameter: valid-looking ones by the parameter's name, and hostile ones. */
function paramArbitrary(
  name: string,
  schemas: Record<string, z.core.$ZodType>,
): fc.Arbitrary<ParamValue> {
  const schema = schemas[name]
  const valid: fc.Arbitrary<string> =
    schema === undefined ? fc.uuid() : (arbitraryOf(schema) as fc.Arbitrary<string>)
  return fc.oneof(
    { weight: 3, arbitrary: fc.nat().map((known): ParamValue => ({ known })) },
    { weight: 2, arbitrary: valid.map((literal): ParamValue => ({ literal })) },
    {
      weight: 2,
      arbitrary: fc
        .oneof(fc.constantFrom(...hostileStrings, 'x'.repeat(3000)), fc.string())
        // A lone surrogate cannot be percent-encoded; a client sends its replacement.
        .map((literal): ParamValue => ({ literal: wellFormed(literal) })),
    },
  )
}

function queryArbitrary(route: ApiRoute): fc.Arbitrary<Record<string, string>> {
  const stringify = (value: unknown): string =>
    typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
  const valid =
    route.query === undefined
      ? fc.constant({})
      : arbitraryOf(route.query).map((value) =>
          Object.fromEntries(
            Object.entries((value ?? {}) as Record<string, unknown>).map(([key, v]) => [
              key,
              stringify(v),
            ]),
          ),
        )
  const keys = route.query === undefined ? ['q'] : Object.keys(defOf(route.query).shape as object)
  const hostile = fc
    .tuple(fc.constantFrom(...keys, 'extra'), hostileValue)
    .map(([key, value]) => ({ [key]: wellFormed(stringify(value).slice(0, 5000)) }))
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: hostile })
}

/** Requests to one route: valid, boundary and hostile values, with and without a session. */
export function fuzzCaseArbitrary(
  route: ApiRoute,
  paramSchemas: Record<string, z.core.$ZodType>,
): fc.Arbitrary<FuzzCase> {
  const params = fc.tuple(...route.params.map((name) => paramArbitrary(name, paramSchemas)))
  const takesBody = route.method !== 'GET' && route.method !== 'HEAD'
  const json = (value: unknown) => JSON.stringify(value) ?? 'null'
  const bodies: fc.Arbitrary<{ kind: CaseKind; body: FuzzCase['body']; contentType?: string }> =
    takesBody
      ? fc.oneof(
          {
            weight: 4,
            arbitrary: (route.body === undefined ? fc.constant({}) : arbitraryOf(route.body)).map(
              (value) => ({ kind: 'valid' as const, body: json(value) }),
            ),
          },
          {
            weight: 4,
            arbitrary: (route.body === undefined ? hostileValue : mutated(route.body)).map(
              (value) => ({ kind: 'hostile' as const, body: json(value) }),
            ),
          },
          {
            weight: 2,
            arbitrary: fc
              .constantFrom(...rawHostileBodies)
              .map((body) => ({ kind: 'raw' as const, body })),
          },
          {
            weight: 1,
            arbitrary: fc
              .tuple(
                route.body === undefined ? fc.constant({}) : arbitraryOf(route.body),
                fc.constantFrom(...contentTypes),
              )
              .map(([value, contentType]) => ({
                kind: 'media' as const,
                body: json(value),
                ...(contentType === undefined ? {} : { contentType }),
              })),
          },
        )
      : fc.constant({ kind: 'valid' as const, body: undefined })
  return fc
    .record({
      params,
      query: queryArbitrary(route),
      body: bodies,
      session: fc.oneof(
        { weight: 4, arbitrary: fc.constant('owner' as const) },
        { weight: 1, arbitrary: fc.constant('other' as const) },
        { weight: 1, arbitrary: fc.constant('none' as const) },
      ),
    })
    .map(({ params, query, body, session }) => ({
      kind: body.kind,
      params,
      query,
      body: body.body,
      contentType:
        body.kind === 'media'
          ? body.contentType
          : takesBody
            ? (route.contentType ?? 'application/json')
            : undefined,
      session,
    }))
}
