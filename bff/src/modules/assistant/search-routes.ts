import { searchQuerySchema } from '@tessera/contracts'
import type { SearchResults } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { Hono } from 'hono'
import { validator } from 'hono/validator'
import type { AppEnv } from '../../http/app-env.ts'
import { noStore } from '../../http/middleware/no-store.ts'
import { validationFailed } from '../../platform/errors.ts'
import { searchConversations } from './search.ts'
import { currentTeam } from './workspace-scope.ts'

const searchQuery = validator('query', (value) => {
  const parsed = searchQuerySchema.safeParse(value)
  if (!parsed.success) throw validationFailed(parsed.error)
  return parsed.data
})

/**
 * `GET /api/assistant/search?q=&limit=`: the signed-in user's search over what their conversation
 * list shows (search.ts). An empty, over-long or control-character query is 422.
 */
export function searchRoutes(deps: { sql: Sql }) {
  return new Hono<AppEnv>().get('/search', noStore(), searchQuery, async (c) => {
    const session = await c.var.auth.require()
    const { q, limit } = c.req.valid('query')
    const team = await currentTeam(deps.sql, session.id, session.userId)
    const body: SearchResults = {
      results: await searchConversations(deps.sql, session.claims, {
        q,
        limit,
        workspaceId: team?.id ?? null,
      }),
    }
    return c.json(body, 200)
  })
}
