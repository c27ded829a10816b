// Stripe's search query language, for the clauses Tessera might use on customers:
// `email:'a@b.c'`, `name~'ada'`, `metadata['user_id']:'u_1'`, joined by AND or OR.
import { invalidRequest } from './errors.ts'
import type { Customer } from './objects.ts'

const CLAUSE = /^\s*(email|name|phone|metadata\[['"]([^'"]+)['"]\])\s*(:|~)\s*(['"])(.*)\4\s*$/

/** A predicate for `query`, or a 400 naming the clause the stand-in does not understand. */
export function customerMatcher(query: string): (customer: Customer) => boolean {
  if (query.includes(' OR ') && query.includes(' AND ')) {
    throw invalidRequest('A search query cannot mix AND and OR.', 'query')
  }
  const joiner = query.includes(' OR ') ? 'OR' : 'AND'
  const clauses = query.split(` ${joiner} `).map((raw) => {
    const match = CLAUSE.exec(raw)
    if (!match) {
      throw invalidRequest(
        `Unsupported search clause: ${raw.trim()}. The stand-in supports email, name, phone and metadata['key'] with : (exact) or ~ (contains).`,
        'query',
      )
    }
    const [, field = '', metaKey, op, , value = ''] = match
    const wanted = value.toLowerCase()
    return (customer: Customer): boolean => {
      const actual =
        metaKey !== undefined
          ? customer.metadata[metaKey]
          : customer[field as 'email' | 'name' | 'phone']
      if (actual === undefined || actual === null) return false
      return op === ':' ? actual.toLowerCase() === wanted : actual.toLowerCase().includes(wanted)
    }
  })
  return (customer) =>
    joiner === 'AND' ? clauses.every((c) => c(customer)) : clauses.some((c) => c(customer))
}
