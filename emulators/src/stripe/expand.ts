// `expand[]=data.product`, `expand[]=subscription.latest_invoice`: replaces ids by the objects they
// name, following dotted paths through lists. The input is a fresh copy, so mutating it is safe.
import { invalidRequest } from './errors.ts'

export interface ExpandResolver {
  /** The object an id names, or undefined when the id is not an object the stand-in knows. */
  byId(id: string): unknown
  /** Properties that only appear when expanded (`line_items` on a Checkout Session). */
  includable(object: Record<string, unknown>, field: string): unknown
}

const MAX_DEPTH = 4

// Fields that hold an id Stripe can expand into the object (or null when there is none).
const EXPANDABLE = new Set([
  'customer',
  'default_payment_method',
  'default_price',
  'invoice',
  'latest_invoice',
  'payment_method',
  'product',
  'subscription',
])

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function expandPath(
  value: unknown,
  segments: readonly string[],
  full: string,
  resolver: ExpandResolver,
): unknown {
  const [head, ...rest] = segments
  if (head === undefined) return value
  if (Array.isArray(value)) return value.map((v) => expandPath(v, segments, full, resolver))
  if (!isRecord(value)) throw cannotExpand(full)
  let child: unknown = value[head]
  if (child === undefined) {
    child = resolver.includable(value, head)
    if (child === undefined) throw cannotExpand(full)
  } else if (typeof child === 'string') {
    const resolved = EXPANDABLE.has(head) ? resolver.byId(child) : undefined
    if (resolved === undefined) throw cannotExpand(full)
    child = resolved
  } else if (child === null) {
    if (!EXPANDABLE.has(head)) throw cannotExpand(full)
    return value
  } else if (typeof child !== 'object') {
    throw cannotExpand(full)
  } else if (rest.length === 0 && !Array.isArray(child)) {
    // Already an object: only a path that goes deeper can expand anything further.
    return value
  }
  value[head] = expandPath(child, rest, full, resolver)
  return value
}

function cannotExpand(path: string) {
  return invalidRequest(`This property cannot be expanded (${path}).`, 'expand')
}

/** Applies every `expand` path to `object` (already a private copy). */
export function expand<T>(
  object: T,
  paths: readonly string[] | undefined,
  resolver: ExpandResolver,
): T {
  for (const path of paths ?? []) {
    const segments = path.split('.')
    if (segments.length > MAX_DEPTH) {
      throw invalidRequest(
        `You cannot expand more than ${MAX_DEPTH} levels of a property. Property: ${path}`,
        'expand',
      )
    }
    expandPath(object, segments, path, resolver)
  }
  return object
}
