/**
 * Conversation search (docs/decisions/029): PostgreSQL full-text search over the messages and
 * titles of the conversations the list shows — the session's workspace, the caller's own and
 * those shared with it — read as the user (`withUser`), so RLS keeps everyone else's out. Ranked
 * by `ts_rank` (a title match counts double), one hit per conversation (its best message), with
 * `ts_headline` snippets whose highlights come back as plain pieces, never HTML.
 */
import type { Highlight, SearchHit } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { authorNames } from './conversation-sharing.ts'
import { UNTITLED } from './rows.ts'

// ts_headline marks matches with these; the text rule refuses them in what people send, and they
// are blanked in what is highlighted (a model's answer could hold one), so each one is a mark.
const START = '\u0002'
const STOP = '\u0003'
const snippetOptions = `StartSel=${START}, StopSel=${STOP}, MaxWords=24, MinWords=10, MaxFragments=2, FragmentDelimiter=" … "`
const titleOptions = `StartSel=${START}, StopSel=${STOP}, HighlightAll=true`

interface HitRow {
  conversation_id: string
  title: string | null
  user_id: string
  updated_at: Date
  message_id: string | null
  role: 'user' | 'assistant' | null
  created_at: Date | null
  snippet: string | null
  title_marked: string | null
}

/** ts_headline's output with the sentinels, as pieces; a stray sentinel is dropped. */
export function highlightOf(marked: string): Highlight {
  const pieces: Highlight = []
  let match = false
  let text = ''
  const flush = () => {
    if (text !== '') pieces.push({ text, match })
    text = ''
  }
  for (const char of marked) {
    if (char === START || char === STOP) {
      flush()
      match = char === START
    } else text += char
  }
  flush()
  return pieces
}

/**
 * The statement: hits are found in a subquery (the GIN indexes, ranking, the limit), and only the
 * rows kept are highlighted, since ts_headline re-reads the whole text.
 */
const searchStatement = (scope: 'personal' | 'team') => `
  with q as (select websearch_to_tsquery('english', $1::text) as query),
  scope as (
    select c.id, c.title, c.user_id, c.updated_at from public.assistant_conversations c
    where ${
      scope === 'personal'
        ? 'c.user_id = $3::uuid and c.workspace_id is null and $4::uuid is null'
        : 'c.workspace_id = $4::uuid and (c.user_id = $3::uuid or c.shared)'
    }
  ),
  message_hits as (
    select distinct on (m.conversation_id) m.conversation_id, m.id, m.role, m.created_at, m.content,
      ts_rank(m.search_vector, q.query) as rank
    from public.assistant_messages m, q
    where m.search_vector @@ q.query
      and m.conversation_id in (select id from scope)
    order by m.conversation_id, rank desc, m.seq
  ),
  title_hits as (
    select s.id, ts_rank(to_tsvector('english'::regconfig, coalesce(s.title, '')), q.query) as rank
    from scope s, q
    where to_tsvector('english'::regconfig, coalesce(s.title, '')) @@ q.query
  ),
  ranked as (
    select s.id, s.title, s.user_id, s.updated_at, h.id as message_id, h.role, h.created_at,
      h.content, t.id is not null as title_matched,
      coalesce(h.rank, 0) + 2 * coalesce(t.rank, 0) as rank
    from scope s
    left join message_hits h on h.conversation_id = s.id
    left join title_hits t on t.id = s.id
    where h.id is not null or t.id is not null
    order by rank desc, s.updated_at desc, s.id
    limit $2::int
  )
  select r.id as conversation_id, r.title, r.user_id, r.updated_at, r.message_id, r.role,
    r.created_at,
    case when r.message_id is null then null
      else ts_headline('english', translate(r.content, E'\\x02\\x03', '  '), q.query, $5::text) end
      as snippet,
    case when r.title_matched
      then ts_headline('english', translate(r.title, E'\\x02\\x03', '  '), q.query, $6::text) end
      as title_marked
  from ranked r, q
  order by r.rank desc, r.updated_at desc, r.id`

/** Searches what the list shows in the workspace (null: the caller's personal one). */
export async function searchConversations(
  sql: Sql,
  claims: UserClaims,
  search: { q: string; limit: number; workspaceId: string | null },
): Promise<SearchHit[]> {
  const { rows } = await withUser(
    sql,
    claims,
    (tx) =>
      tx.query<HitRow>(searchStatement(search.workspaceId === null ? 'personal' : 'team'), [
        search.q,
        search.limit,
        claims.sub,
        search.workspaceId,
        snippetOptions,
        titleOptions,
      ]),
    { readOnly: true },
  )
  // Names of the other members who shared, read after the user's transaction (as the list does).
  const authors = await authorNames(
    sql,
    rows.map((row) => row.user_id).filter((id) => id !== claims.sub),
  )
  return rows.map((row) => ({
    conversationId: row.conversation_id,
    title:
      row.title_marked !== null
        ? highlightOf(row.title_marked)
        : [{ text: row.title ?? UNTITLED, match: false }],
    sharedBy: row.user_id === claims.sub ? null : (authors.get(row.user_id) ?? 'a former member'),
    message:
      row.message_id === null || row.role === null || row.created_at === null
        ? null
        : {
            id: row.message_id,
            role: row.role,
            createdAt: new Date(row.created_at).toISOString(),
            snippet: highlightOf(row.snippet ?? ''),
          },
    updatedAt: new Date(row.updated_at).toISOString(),
  }))
}
