import type { Result, Router } from 'hono/router'
import { RegExpRouter } from 'hono/router/reg-exp-router'
import { SmartRouter } from 'hono/router/smart-router'
import { TrieRouter } from 'hono/router/trie-router'

/** Paths kept at most; all are dropped when it is reached (ids make the set of paths unbounded). */
const MATCHES_MAX = 1024
/** Longer paths are matched every time, so the kept ones stay small. */
const PATH_KEPT_MAX = 256

/**
 * Hono's default router (RegExpRouter, or TrieRouter for routes it cannot compile: the BFF's
 * are), with each method and path's match kept once routing is set up. The app's ~200 routes and
 * middleware made matching `/api/me` cost about as much as its session check; a match depends on
 * the method and path alone, and Hono only reads it (its RegExpRouter shares matches between
 * requests itself).
 */
export class CachedRouter<T> implements Router<T> {
  name = 'CachedRouter'
  readonly #inner: Router<T>
  readonly #matches = new Map<string, Result<T>>()

  constructor(
    inner: Router<T> = new SmartRouter({ routers: [new RegExpRouter(), new TrieRouter()] }),
  ) {
    this.#inner = inner
  }

  add(method: string, path: string, handler: T): void {
    // A route added late (the inner router refuses it once built) would not be in a kept match.
    this.#matches.clear()
    this.#inner.add(method, path, handler)
  }

  match(method: string, path: string): Result<T> {
    if (path.length > PATH_KEPT_MAX) return this.#inner.match(method, path)
    const key = `${method} ${path}`
    let result = this.#matches.get(key)
    if (result === undefined) {
      result = this.#inner.match(method, path)
      if (this.#matches.size >= MATCHES_MAX) this.#matches.clear()
      this.#matches.set(key, result)
    }
    return result
  }
}
