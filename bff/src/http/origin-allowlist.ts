/**
 * The origins allowed to call /api with credentials and to change state. Mutable only by adding,
 * so the Node entry can add its own listening origin once the port is known (port 0 in tests).
 */
export interface OriginAllowlist {
  allows(origin: string): boolean
  add(origin: string): void
  list(): string[]
}

export function createOriginAllowlist(origins: Iterable<string>): OriginAllowlist {
  const allowed = new Set(origins)
  return {
    allows: (origin) => allowed.has(origin),
    add: (origin) => {
      allowed.add(new URL(origin).origin)
    },
    list: () => [...allowed],
  }
}
