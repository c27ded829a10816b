// Stripe's cursor pagination for list endpoints: `limit`, `starting_after`, `ending_before`.
import { invalidRequest } from './errors.ts'
import type { ApiList } from './objects.ts'

export function paginate<T extends { id: string }>(
  items: T[],
  query: {
    limit?: number | undefined
    starting_after?: string | undefined
    ending_before?: string | undefined
  },
  url: string,
): ApiList<T> {
  const limit = query.limit ?? 10
  if (query.starting_after !== undefined) {
    const index = items.findIndex((item) => item.id === query.starting_after)
    if (index === -1) {
      throw invalidRequest(
        `No such object: '${query.starting_after}'`,
        'starting_after',
        'resource_missing',
      )
    }
    const rest = items.slice(index + 1)
    return { object: 'list', data: rest.slice(0, limit), has_more: rest.length > limit, url }
  }
  if (query.ending_before !== undefined) {
    const index = items.findIndex((item) => item.id === query.ending_before)
    if (index === -1) {
      throw invalidRequest(
        `No such object: '${query.ending_before}'`,
        'ending_before',
        'resource_missing',
      )
    }
    const before = items.slice(0, index)
    return {
      object: 'list',
      data: before.slice(Math.max(0, before.length - limit)),
      has_more: before.length > limit,
      url,
    }
  }
  return { object: 'list', data: items.slice(0, limit), has_more: items.length > limit, url }
}
