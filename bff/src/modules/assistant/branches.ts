/**
 * Edits and regenerates (decision 031): each finds the message it starts from, then is a send
 * like any other (send-checks.ts and answer-stream.ts: the same rate limit, moderation, hold and
 * metering), whose new messages hang beside the ones they replace. And paging between versions.
 */
import { ApiError } from '@tessera/contracts'
import type { ChatMessage } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import { execute, queries } from '../../platform/db/query.ts'
import { withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import { readOnly } from './conversation-sharing.ts'
import { chatMessageOf, messageColumns } from './rows.ts'

/** An edit or a regenerate, found: where its messages go and what history the model is sent. */
export interface SendBranch {
  /** The history is the path before this message: the question edited, or answered again. */
  beforeId: string
  /** The parent of the new question (an edit) or of the new answer (a regenerate). */
  parentId: string | null
  /** A regenerate: the stored question answered again (no new question is stored). */
  question: ChatMessage | null
}

/**
 * Why a write found no message of the caller's: in another member's shared conversation it is
 * read-only; anywhere else (their own conversation, or one they cannot see) there is no such message.
 */
async function refusal(sql: Sql, claims: UserClaims, conversationId: string): Promise<ApiError> {
  const owner = await withUser(
    sql,
    claims,
    async (tx) =>
      (
        await execute(
          queries
            .selectFrom('assistant_conversations')
            .select('user_id')
            .where('id', '=', conversationId),
          tx,
        )
      ).rows[0]?.user_id,
    { readOnly: true },
  )
  return owner !== undefined && owner !== claims.sub ? readOnly() : new ApiError('not_found')
}

/**
 * The message an edit (a question) or a regenerate (an answer) starts from, in the caller's own
 * conversation; refused with `not_found`, `conversation_read_only`, `message_not_editable`,
 * `message_not_regenerable`, or `answer_in_progress` while an answer there still streams (one
 * younger than `abandonedAfterMs`: older ones belong to a BFF that died).
 */
export async function findBranch(
  sql: Sql,
  claims: UserClaims,
  input: {
    conversationId: string
    messageId: string
    kind: 'edit' | 'regenerate'
    abandonedAfterMs: number
  },
): Promise<SendBranch> {
  const found = await withUser(
    sql,
    claims,
    async (tx) => {
      const { rows } = await execute(
        queries
          .selectFrom('assistant_messages as target')
          .select([
            'target.role',
            'target.parent_id',
            raw<boolean>`exists (select 1 from public.assistant_messages streaming
              where streaming.conversation_id = target.conversation_id
                and streaming.status = 'streaming'
                and streaming.created_at >= now() - make_interval(secs => ${input.abandonedAfterMs / 1000}))`.as(
              'answering',
            ),
          ])
          .where('target.id', '=', input.messageId)
          .where('target.conversation_id', '=', input.conversationId)
          .where('target.user_id', '=', claims.sub),
        tx,
      )
      const target = rows[0]
      if (target === undefined) return null
      // A regenerate answers the answer's question again: the message it follows.
      const question =
        input.kind === 'regenerate' && target.role === 'assistant' && target.parent_id !== null
          ? (
              await execute(
                queries
                  .selectFrom('assistant_messages')
                  .select(messageColumns)
                  .where('id', '=', target.parent_id)
                  .where('role', '=', 'user'),
                tx,
              )
            ).rows[0]
          : undefined
      return { ...target, question: question === undefined ? null : chatMessageOf(question) }
    },
    { readOnly: true },
  )
  if (found === null) throw await refusal(sql, claims, input.conversationId)
  if (input.kind === 'edit') {
    if (found.role !== 'user') throw new ApiError('message_not_editable')
    if (found.answering) throw new ApiError('answer_in_progress')
    return { beforeId: input.messageId, parentId: found.parent_id, question: null }
  }
  if (found.question === null) throw new ApiError('message_not_regenerable')
  if (found.answering) throw new ApiError('answer_in_progress')
  const { question } = found
  return { beforeId: question.id, parentId: question.id, question }
}

/**
 * Shows one version of a message (and, below it, that version's own thread as last shown); the
 * caller's own conversation only: `not_found` (or `conversation_read_only`) for any other.
 */
export async function selectVersion(
  sql: Sql,
  claims: UserClaims,
  input: { conversationId: string; messageId: string },
): Promise<void> {
  const { rowCount } = await withUser(sql, claims, (tx) =>
    execute(
      queries
        .updateTable('assistant_messages')
        .set({ selected: true })
        .where('id', '=', input.messageId)
        .where('conversation_id', '=', input.conversationId)
        .where('user_id', '=', claims.sub),
      tx,
    ),
  )
  if (rowCount === 0) throw await refusal(sql, claims, input.conversationId)
}
