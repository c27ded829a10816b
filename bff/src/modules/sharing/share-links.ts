/**
 * Public share links of conversations (docs/decisions/030). The author makes, lists and revokes
 * theirs as themselves (`withUser`: RLS lets nobody else touch them); a visitor's read goes by the
 * link's id alone on the BFF's own connection, and returns the conversation as it is at that
 * moment, with the author's display name at most — never an email.
 */
import { ApiError, sharedPath, shareIdPattern } from '@tessera/contracts'
import type { SharedConversation, ShareLink } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { UNTITLED } from '../assistant/rows.ts'

/** The most messages a shared page shows (the conversation list's own bound). */
const SHARED_MESSAGE_LIMIT = 1000
/** The most links the author's list shows, newest first. */
const SHARE_LIST_LIMIT = 500

/** A new link id: 24 random bytes (192 bits) as base64url, 32 characters. */
export function newShareId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
}

interface LinkRow {
  id: string
  conversation_id: string
  title: string | null
  created_at: Date
}

const linkOf = (row: LinkRow): ShareLink => ({
  id: row.id,
  conversationId: row.conversation_id,
  title: row.title ?? UNTITLED,
  path: sharedPath(row.id),
  createdAt: new Date(row.created_at).toISOString(),
})

/**
 * The conversation's link, made now (`created`) or the one it has. `not_found` for a conversation
 * the caller cannot read, `conversation_read_only` for another member's shared one.
 */
export function shareConversation(
  sql: Sql,
  claims: UserClaims,
  conversationId: string,
): Promise<{ share: ShareLink; created: boolean }> {
  return withUser(sql, claims, async (tx) => {
    const { rows } = await tx.query<{ user_id: string; title: string | null }>(
      'select user_id, title from public.assistant_conversations where id = $1',
      [conversationId],
    )
    const conversation = rows[0]
    if (conversation === undefined) throw new ApiError('not_found')
    if (conversation.user_id !== claims.sub) throw new ApiError('conversation_read_only')
    // A second share (a double click, another tab) finds the first: one live link per conversation.
    const inserted = await tx.query<LinkRow>(
      `insert into public.assistant_share_links (id, conversation_id, user_id) values ($1, $2, $3)
       on conflict (conversation_id) do nothing
       returning id, conversation_id, created_at, null::text as title`,
      [newShareId(), conversationId, claims.sub],
    )
    const made = inserted.rows[0]
    if (made !== undefined)
      return { share: linkOf({ ...made, title: conversation.title }), created: true }
    const existing = await tx.query<LinkRow>(
      `select id, conversation_id, created_at, $2::text as title
       from public.assistant_share_links where conversation_id = $1`,
      [conversationId, conversation.title],
    )
    const row = existing.rows[0]
    // Revoked between the insert and the read, in another transaction: the caller may try again.
    if (row === undefined) throw new ApiError('conflict')
    return { share: linkOf(row), created: false }
  })
}

/**
 * Revokes the conversation's link: its id never works again. `not_found` when it has none the
 * caller made (someone else's conversation, or no link); `conversation_read_only` for a
 * conversation another member shared with the caller.
 */
export async function revokeShare(
  sql: Sql,
  claims: UserClaims,
  conversationId: string,
): Promise<void> {
  await withUser(sql, claims, async (tx) => {
    const deleted = await tx.query(
      'delete from public.assistant_share_links where conversation_id = $1 and user_id = $2',
      [conversationId, claims.sub],
    )
    if (deleted.rowCount > 0) return
    const { rows } = await tx.query<{ user_id: string }>(
      'select user_id from public.assistant_conversations where id = $1',
      [conversationId],
    )
    const conversation = rows[0]
    if (conversation !== undefined && conversation.user_id !== claims.sub)
      throw new ApiError('conversation_read_only')
    throw new ApiError('not_found')
  })
}

/** The caller's live links, newest first, with their conversations' titles now. */
export async function listShares(sql: Sql, claims: UserClaims): Promise<ShareLink[]> {
  const { rows } = await withUser(
    sql,
    claims,
    (tx) =>
      tx.query<LinkRow>(
        `select s.id, s.conversation_id, s.created_at, c.title
         from public.assistant_share_links s
         join public.assistant_conversations c on c.id = s.conversation_id
         where s.user_id = $1
         order by s.created_at desc, s.id
         limit ${SHARE_LIST_LIMIT}`,
        [claims.sub],
      ),
    { readOnly: true },
  )
  return rows.map(linkOf)
}

/**
 * What a link shows, read now: null for an id that is malformed, was never made, was revoked, or
 * whose conversation is gone — one lookup by primary key either way. Messages still streaming or
 * failed are left out.
 */
export async function readShared(sql: Sql, id: string): Promise<SharedConversation | null> {
  if (!shareIdPattern.test(id)) return null
  return sql.transaction(
    async (tx) => {
      const { rows } = await tx.query<{
        conversation_id: string
        title: string | null
        author: string | null
        created_at: Date
      }>(
        `select s.conversation_id, c.title, nullif(p.display_name, '') as author, s.created_at
         from public.assistant_share_links s
         join public.assistant_conversations c on c.id = s.conversation_id
         left join public.profiles p on p.user_id = c.user_id
         where s.id = $1`,
        [id],
      )
      const link = rows[0]
      if (link === undefined) return null
      const messages = await tx.query<{
        id: string
        role: 'user' | 'assistant'
        content: string
        status: 'complete' | 'partial'
        created_at: Date
      }>(
        `select id, role, content, status, created_at from (
           select id, role, content, status, created_at, seq from public.assistant_messages
           where conversation_id = $1 and status in ('complete', 'partial')
           order by seq desc limit ${SHARED_MESSAGE_LIMIT}
         ) latest order by seq`,
        [link.conversation_id],
      )
      return {
        title: link.title ?? UNTITLED,
        author: link.author,
        sharedAt: new Date(link.created_at).toISOString(),
        messages: messages.rows.map((row) => ({
          id: row.id,
          role: row.role,
          content: row.content,
          status: row.status,
          createdAt: new Date(row.created_at).toISOString(),
        })),
      }
    },
    { readOnly: true },
  )
}
