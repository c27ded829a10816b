import { ApiError } from '@tessera/contracts'
import type { SharedConversation } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import { rateLimitHeaders, rateLimited } from '../../platform/rate-limiter.ts'
import type { RateLimiter } from '../../platform/rate-limiter.ts'
import { readShared } from './share-links.ts'
import {
  sharedConversationPage,
  sharedNotFoundPage,
  sharedPagePolicy,
  sharedRateLimitedPage,
} from './shared-page.ts'

export interface SharedRoutesDeps {
  sql: Sql
  /** Reads of share links per client per window (the page and its JSON count together). */
  limiter: RateLimiter
  clientKey?: (c: Context) => string | undefined
}

/** Nobody should index or keep a shared conversation: it can be revoked at any moment. */
function unindexed(c: Context<AppEnv>): void {
  c.header('Cache-Control', 'no-store')
  c.header('X-Robots-Tag', 'noindex, nofollow')
}

async function hit(deps: SharedRoutesDeps, c: Context<AppEnv>) {
  const decision = await deps.limiter.hit(deps.clientKey?.(c) ?? 'unknown-client')
  if (deps.limiter.policy !== undefined)
    for (const [name, value] of Object.entries(rateLimitHeaders(deps.limiter.policy, decision)))
      c.header(name, value)
  return decision
}

/**
 * `GET /api/shared/:id`, public: a shared conversation as JSON (contracts/src/assistant-share.ts);
 * 404 `share_not_found` for any id that does not work, 429 past the limit.
 */
export function sharedApiRoutes(deps: SharedRoutesDeps) {
  return new Hono<AppEnv>().get('/:id', async (c) => {
    const decision = await hit(deps, c)
    if (!decision.allowed) throw rateLimited(deps.limiter, decision)
    const shared: SharedConversation | null = await readShared(deps.sql, c.req.param('id'))
    unindexed(c)
    if (shared === null) throw new ApiError('share_not_found')
    return c.json(shared, 200)
  })
}

/** `GET /shared/:id`: the page a share link opens (shared-page.ts), for anyone, signed in or not. */
export function sharedPageRoutes(deps: SharedRoutesDeps) {
  return new Hono<AppEnv>().get('/:id', async (c) => {
    c.header('Content-Security-Policy', await sharedPagePolicy())
    c.header('Referrer-Policy', 'no-referrer')
    unindexed(c)
    const decision = await hit(deps, c)
    if (!decision.allowed) {
      c.header('Retry-After', String(decision.retryAfterSeconds))
      return c.html(sharedRateLimitedPage(decision.retryAfterSeconds), 429)
    }
    const shared = await readShared(deps.sql, c.req.param('id'))
    if (shared === null) return c.html(sharedNotFoundPage(), 404)
    return c.html(sharedConversationPage(shared), 200)
  })
}
