function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Stripe's `previous_attributes`: the old values of the fields that changed. Nested objects are
 * diffed one level down; a list (subscription items) is given whole, as Stripe does.
 */
export function previousAttributes<T extends object>(before: T, after: T): Record<string, unknown> {
  const previous: Record<string, unknown> = {}
  const old = new Map<string, unknown>(Object.entries(before))
  for (const [key, now] of Object.entries(after)) {
    const was = old.get(key)
    if (JSON.stringify(was) === JSON.stringify(now)) continue
    if (isPlainObject(was) && isPlainObject(now) && was.object !== 'list') {
      previous[key] = previousAttributes(was, now)
    } else if (isPlainObject(was) && was.object === 'list') {
      previous[key] = { data: was.data }
    } else {
      previous[key] = was === undefined ? null : was
    }
  }
  return previous
}
