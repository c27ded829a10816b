import { ApiError } from '@tessera/contracts'
import type { ChatMessage, Conversation, ErrorCode } from '@tessera/contracts'
import type { Sql, SqlTransaction, SqlValue } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import { jsonArrayFrom } from 'kysely/helpers/postgres'
import { execute, queries } from '../../platform/db/query.ts'
import { reusableStatement } from '../../platform/db/reusable-statement.ts'
import { asUser, withUser } from '../../platform/db/with-user.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { PromptMessage } from './estimate.ts'
import { recentHistory } from './history.ts'
import { abandonedAfterMs } from './quota.ts'
import { chatMessageOf, conversationOf, interrupted, messageColumns } from './rows.ts'
import { authorNames, withAuthor } from './conversation-sharing.ts'
import { beginSendStatements, inThread, versionsOf, withVersions } from './thread.ts'
import type { SendMessages } from './thread.ts'

export { chatMessageOf, conversationOf, titleFrom, UNTITLED } from './rows.ts'

/** The most messages one conversation lists (the newest, oldest first). */
const MESSAGE_LIST_LIMIT = 1000
/** An answer still `streaming` after `afterMs`: its BFF died mid-answer (quota.ts). */
const abandonedAnswer = (afterMs: number) => raw<boolean>`status = 'streaming'
  and created_at < now() - make_interval(secs => ${afterMs / 1000})`

/** A conversation as stored: no title until one is given. */
export type StoredConversation = Omit<Conversation, 'title'> & { title: string | null }

export interface ConversationCursor {
  /** updated_at to the microsecond, as Postgres prints it in UTC. */
  at: string
  id: string
}

export interface AnswerUsage {
  promptTokens: number
  completionTokens: number
  estimated: boolean
}

export interface FinishedAnswer {
  content: string
  status: 'complete' | 'partial' | 'failed'
  usage: AnswerUsage | null
  errorCode: ErrorCode | null
}

export interface AssistantStore {
  /** A new conversation in the workspace (null: the author's personal one). */
  createConversation(
    claims: UserClaims,
    title: string | null,
    workspaceId?: string | null,
  ): Promise<Conversation>
  /**
   * One workspace's conversations (null: personal): the caller's own, and in a team the ones its
   * other members shared (with `sharedBy`).
   */
  listConversations(
    claims: UserClaims,
    page: { limit: number; cursor: ConversationCursor | null },
    workspaceId?: string | null,
  ): Promise<{ conversations: Conversation[]; next: ConversationCursor | null }>
  renameConversation(claims: UserClaims, id: string, title: string): Promise<Conversation | null>
  deleteConversation(claims: UserClaims, id: string): Promise<boolean>
  listMessages(
    claims: UserClaims,
    id: string,
  ): Promise<{ conversation: Conversation; messages: ChatMessage[] } | null>
  /**
   * The conversation (its title null when untitled) and its latest messages for the model,
   * within the bounds.
   */
  loadForSend(
    claims: UserClaims,
    id: string,
    bounds: { messages: number; chars: number },
    /** An edit or a regenerate: the history is the path before this message (history.ts). */
    beforeId?: string | null,
  ): Promise<{
    conversation: StoredConversation
    history: PromptMessage[]
    /** The workspace it belongs to; null: the author's personal one. */
    workspaceId: string | null
  } | null>
  /**
   * Stores the user's message and the answer's placeholder (`streaming`) as given, names an
   * untitled conversation `title` and moves it to the top of the list; `not_found` when the
   * conversation is gone.
   */
  beginSend(claims: UserClaims, input: SendMessages): Promise<void>
  /**
   * Stores how an answer ended (the message null when its conversation was deleted meanwhile) and,
   * in the same transaction, runs `settle` as the BFF (not as the user): the answer is stored and
   * its tokens counted together, or neither is.
   */
  finishAnswer<T>(
    claims: UserClaims,
    messageId: string,
    answer: FinishedAnswer,
    settle: (tx: SqlTransaction) => Promise<T>,
  ): Promise<{ message: ChatMessage | null; settled: T }>
}

const cursorAt = raw<string>`to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

const conversationColumns = ['id', 'title', 'created_at', 'updated_at', 'shared', 'model'] as const

/** The conversation and its history for a send (compiled once: it runs before every answer). */
const loadForSendStatement = reusableStatement(
  (values: {
    id: string
    userId: string
    messages: number
    chars: number
    beforeId: string | null
  }) =>
    queries
      .selectFrom('assistant_conversations as conversation')
      .select([
        'conversation.id',
        'conversation.title',
        'conversation.created_at',
        'conversation.updated_at',
        'conversation.workspace_id',
        'conversation.model',
        jsonArrayFrom(recentHistory(values.id, values.userId, values, values.beforeId)).as(
          'history',
        ),
      ])
      .where('conversation.id', '=', values.id)
      .where('conversation.user_id', '=', values.userId),
)

const readOnly = { readOnly: true }

/** Conversations and messages, read and written as the user (`withUser`): RLS decides. */
export function createAssistantStore(
  sql: Sql,
  options: { abandonedAfterMs?: number } = {},
): AssistantStore {
  const abandonedAfter = options.abandonedAfterMs ?? abandonedAfterMs
  // RLS decides: the caller's own, or one shared with a workspace of theirs (read-only).
  const selectConversation = (id: string) =>
    queries
      .selectFrom('assistant_conversations')
      .select([...conversationColumns, 'user_id'])
      .where('id', '=', id)

  return {
    createConversation: (claims, title, workspaceId = null) =>
      withUser(sql, claims, async (tx) => {
        const { rows } = await execute(
          queries
            .insertInto('assistant_conversations')
            .values({ user_id: claims.sub, title, workspace_id: workspaceId })
            .returning(conversationColumns),
          tx,
        )
        const row = rows[0]
        if (row === undefined) throw new Error('The conversation was not created.')
        return conversationOf(row)
      }),

    listConversations: async (claims, page, workspaceId = null) => {
      const { rows } = await withUser(
        sql,
        claims,
        async (tx) => {
          const { cursor } = page
          return execute(
            queries
              .selectFrom('assistant_conversations')
              .select([...conversationColumns, 'user_id', cursorAt.as('cursor_at')])
              .$if(workspaceId === null, (query) =>
                query.where('user_id', '=', claims.sub).where('workspace_id', 'is', null),
              )
              .$if(workspaceId !== null, (query) =>
                query
                  .where('workspace_id', '=', workspaceId)
                  .where((eb) => eb.or([eb('user_id', '=', claims.sub), eb('shared', '=', true)])),
              )
              .$if(cursor !== null, (query) =>
                query.where(
                  // Sent as text: postgres.js would turn a timestamptz parameter into a Date and
                  // lose the microseconds the cursor keeps.
                  raw<boolean>`(updated_at, id) < (${cursor?.at}::text::timestamptz, ${cursor?.id}::uuid)`,
                ),
              )
              .orderBy('updated_at', 'desc')
              .orderBy('id', 'desc')
              .limit(page.limit + 1),
            tx,
          )
        },
        readOnly,
      )
      const shown = rows.slice(0, page.limit)
      const last = shown[shown.length - 1]
      // Names of the other members who shared, read after the user's transaction (the BFF's own
      // connection; on PGlite, a statement outside a transaction waits for it to end).
      const others = shown.map((row) => row.user_id).filter((id) => id !== claims.sub)
      const authors = await authorNames(sql, others)
      return {
        conversations: shown.map((row) => withAuthor(row, claims.sub, authors)),
        next:
          rows.length > page.limit && last !== undefined
            ? { at: last.cursor_at, id: last.id }
            : null,
      }
    },

    renameConversation: (claims, id, title) =>
      withUser(sql, claims, async (tx) => {
        const { rows } = await execute(
          queries
            .updateTable('assistant_conversations')
            .set({ title })
            .where('id', '=', id)
            .where('user_id', '=', claims.sub)
            .returning(conversationColumns),
          tx,
        )
        const row = rows[0]
        return row === undefined ? null : conversationOf(row)
      }),

    deleteConversation: (claims, id) =>
      withUser(sql, claims, async (tx) => {
        const { rowCount } = await execute(
          queries
            .deleteFrom('assistant_conversations')
            .where('id', '=', id)
            .where('user_id', '=', claims.sub),
          tx,
        )
        return rowCount > 0
      }),

    listMessages: async (claims, id) => {
      const found = await withUser(
        sql,
        claims,
        async (tx) => {
          const conversation = (await execute(selectConversation(id), tx)).rows[0]
          if (conversation === undefined) return null
          const { rows } = await execute(
            queries
              .selectFrom('assistant_messages')
              .select(messageColumns)
              .select(abandonedAnswer(abandonedAfter).as('abandoned'))
              .select(versionsOf.as('versions'))
              .where('conversation_id', '=', id)
              // The visible thread only; other versions are counted in `versions`.
              .where(inThread('id', id))
              .orderBy('seq', 'desc')
              .limit(MESSAGE_LIST_LIMIT),
            tx,
          )
          return { conversation, rows }
        },
        readOnly,
      )
      if (found === null) return null
      const { conversation, rows } = found
      // Another member's shared conversation names its author (read after the user's transaction).
      const authors =
        conversation.user_id === claims.sub
          ? new Map<string, string>()
          : await authorNames(sql, [conversation.user_id])
      return {
        conversation: withAuthor(conversation, claims.sub, authors),
        messages: rows
          .reverse()
          .map(({ abandoned, versions, ...row }) =>
            withVersions(chatMessageOf(abandoned ? interrupted(row) : row), versions),
          ),
      }
    },

    loadForSend: async (claims, id, bounds, beforeId = null) => {
      // One statement, in one round trip with its transaction: this runs before every answer.
      const { rows } = await loadForSendStatement(asUser(sql, claims, readOnly), {
        id,
        userId: claims.sub,
        messages: bounds.messages,
        chars: bounds.chars,
        beforeId,
      })
      const row = rows[0]
      if (row === undefined) return null
      return {
        conversation: { ...conversationOf(row), title: row.title },
        workspaceId: row.workspace_id,
        history: row.history
          .map((message): PromptMessage => ({ role: message.role, content: message.content }))
          .reverse(),
      }
    },

    beginSend: async (claims, input) => {
      // One statement, in one round trip with its transaction (the first token waits for it).
      // Nothing is written when the conversation is not the user's, so committing is safe.
      const { branch, user, assistant } = input
      const place = branch === undefined ? 'end' : branch.regenerate ? 'regenerate' : 'edit'
      const values: Record<string, SqlValue> = {
        conversationId: input.conversationId,
        userId: claims.sub,
        title: input.title,
        model: assistant.model,
        answerId: assistant.id,
        createdAt: assistant.createdAt,
        ...(place === 'regenerate' ? {} : { questionId: user.id, question: user.content }),
        ...(branch === undefined ? {} : { parentId: branch.parentId }),
      }
      const { rowCount } = await beginSendStatements[place](asUser(sql, claims), values)
      // Deleted (in another tab) since the send began.
      if (rowCount === 0) throw new ApiError('not_found')
    },

    finishAnswer: (claims, messageId, answer, settle) =>
      withUser(sql, claims, async (tx) => {
        const { rows } = await execute(
          queries
            .updateTable('assistant_messages')
            .set({
              content: answer.content,
              status: answer.status,
              prompt_tokens: answer.usage?.promptTokens ?? null,
              completion_tokens: answer.usage?.completionTokens ?? null,
              usage_estimated: answer.usage === null ? null : answer.usage.estimated,
              error_code: answer.errorCode,
            })
            .where('id', '=', messageId)
            .where('user_id', '=', claims.sub)
            .returning(messageColumns),
          tx,
        )
        const row = rows[0]
        // Back to the BFF's own role for the rest of this transaction: users cannot write usage.
        await tx.exec('set local role none')
        return { message: row === undefined ? null : chatMessageOf(row), settled: await settle(tx) }
      }),
  }
}
