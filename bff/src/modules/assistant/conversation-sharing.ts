/**
 * Conversations shared with a team workspace (docs/decisions/027): the author shares or unshares
 * theirs; the other members read it (RLS), never write it: a write to one answers 403
 * `conversation_read_only` rather than 404, so the page can say why.
 */
import { ApiError } from '@tessera/contracts'
import type { Conversation } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import type { AssistantConversationRow } from '../../platform/db/schema.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { conversationOf } from './rows.ts'

/** The refusal of a write to a conversation another member shared. */
export function readOnly(): ApiError {
  return new ApiError('conversation_read_only')
}

/**
 * The names (display name, else email) of conversation authors, read with the BFF's connection:
 * a member cannot read another's account, but may see who shared what with their workspace.
 */
export async function authorNames(sql: Sql, ids: readonly string[]): Promise<Map<string, string>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  const { rows } = await sql.query<{ id: string; name: string | null }>(
    `select u.id, coalesce(nullif(p.display_name, ''), u.email) as name from auth.users u
     left join public.profiles p on p.user_id = u.id
     where u.id in (select jsonb_array_elements_text($1::jsonb)::uuid)`,
    [JSON.stringify(unique)],
  )
  return new Map(rows.map((row) => [row.id, row.name ?? 'a former member']))
}

/** A listed conversation, marked with its author's name when it is another member's. */
export function withAuthor(
  row: Pick<
    AssistantConversationRow,
    'id' | 'title' | 'created_at' | 'updated_at' | 'shared' | 'user_id'
  > &
    Partial<Pick<AssistantConversationRow, 'model'>>,
  me: string,
  authors: ReadonlyMap<string, string>,
): Conversation {
  const conversation = conversationOf(row)
  if (row.user_id === me) return conversation
  return { ...conversation, sharedBy: authors.get(row.user_id) ?? 'a former member' }
}

/** Whether the caller can read the conversation (theirs, or shared with them): RLS decides. */
export function isReadable(sql: Sql, claims: UserClaims, id: string): Promise<boolean> {
  return withUser(
    sql,
    claims,
    async (tx) =>
      (await tx.query('select 1 from public.assistant_conversations where id = $1', [id])).rows
        .length > 0,
    { readOnly: true },
  )
}

/**
 * Shares the author's conversation with its team workspace, or stops sharing it. `not_found` for
 * one the caller cannot read, `conversation_read_only` for another member's, `sharing_unavailable`
 * outside a team workspace.
 */
export function setShared(
  sql: Sql,
  claims: UserClaims,
  id: string,
  shared: boolean,
): Promise<Conversation> {
  return withUser(sql, claims, async (tx) => {
    const { rows } = await tx.query<{ user_id: string; kind: string | null }>(
      `select c.user_id, w.kind from public.assistant_conversations c
       left join public.workspaces w on w.id = c.workspace_id
       where c.id = $1`,
      [id],
    )
    const found = rows[0]
    if (found === undefined) throw new ApiError('not_found')
    if (found.user_id !== claims.sub) throw readOnly()
    if (found.kind !== 'team') throw new ApiError('sharing_unavailable')
    const updated = await tx.query<
      Pick<AssistantConversationRow, 'id' | 'title' | 'created_at' | 'updated_at' | 'shared'>
    >(
      `update public.assistant_conversations set shared = $2
       where id = $1 and user_id = $3
       returning id, title, created_at, updated_at, shared`,
      [id, shared, claims.sub],
    )
    const row = updated.rows[0]
    if (row === undefined) throw new ApiError('not_found')
    return conversationOf({
      ...row,
      created_at: new Date(row.created_at),
      updated_at: new Date(row.updated_at),
    })
  })
}
