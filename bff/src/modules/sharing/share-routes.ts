import { ApiError } from '@tessera/contracts'
import type { ShareLink } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { listShares, revokeShare, shareConversation } from './share-links.ts'

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The `:id` of a conversation; anything but a uuid names no conversation. */
function conversationId(c: Context<AppEnv>): string {
  const id = c.req.param('id') ?? ''
  if (!uuidPattern.test(id)) throw new ApiError('not_found')
  return id.toLowerCase()
}

/**
 * The author's side of public links, under `/api/assistant` (contracts/src/assistant-share.ts):
 * share a conversation (`POST …/conversations/:id/share`), revoke it (`DELETE`), list them
 * (`GET /shares`). No body is read.
 */
export function shareRoutes(deps: { sql: Sql }) {
  const { sql } = deps
  return new Hono<AppEnv>()
    .post('/conversations/:id/share', noStore(), async (c) => {
      const session = await c.var.auth.require()
      const { share, created } = await shareConversation(sql, session.claims, conversationId(c))
      return c.json({ share }, created ? 201 : 200)
    })
    .delete('/conversations/:id/share', noStore(), async (c) => {
      const session = await c.var.auth.require()
      await revokeShare(sql, session.claims, conversationId(c))
      return c.body(null, 204)
    })
    .get('/shares', noStore(), async (c) => {
      const session = await c.var.auth.require()
      const shares: ShareLink[] = await listShares(sql, session.claims)
      return c.json({ shares }, 200)
    })
}
