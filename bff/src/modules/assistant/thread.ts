/**
 * The branches of a conversation (decision 031): messages form a tree, and the visible thread is
 * the path through each selected version (supabase/migrations/20261126143000_*.sql).
 */
import type { ChatMessage } from '@tessera/contracts'
import type { SqlValue } from '@tessera/db/sql'
import { sql as raw } from 'kysely'
import type { AliasableExpression } from 'kysely'
import { queries } from '../../platform/db/query.ts'
import { reusableStatement } from '../../platform/db/reusable-statement.ts'

/** `column` names a message of the visible thread of the conversation. */
export const inThread = (column: string, conversationId: string) =>
  raw<boolean>`${raw.ref(column)} in (select thread.id from public.assistant_thread(${conversationId}::uuid, null) as thread)`

/** Where an edit's new question, or a regenerate's new answer, hangs (decision 031). */
export interface SendBranchPlace {
  parentId: string | null
  /** A regenerate: the question is stored already; only the new answer is added. */
  regenerate: boolean
}

/** What `beginSend` stores: a send's question and answer (a regenerate's answer only), and where. */
export interface SendMessages {
  conversationId: string
  title: string
  user: ChatMessage
  assistant: ChatMessage
  /** An edit or a regenerate (branches.ts); without it the question follows the thread's end. */
  branch?: SendBranchPlace
}

/** The last message of the visible thread, which a new question follows. */
export const threadEnd = (conversationId: string) =>
  raw<string | null>`(${queries
    .selectFrom('assistant_messages as message')
    .select('message.id')
    .where(inThread('message.id', conversationId))
    .orderBy('message.seq', 'desc')
    .limit(1)})`

/** The ids of a message's versions (itself among them), oldest first. */
export const versionsOf = raw<string[]>`(select json_agg(sibling.id order by sibling.seq)
  from public.assistant_messages sibling
  where sibling.conversation_id = assistant_messages.conversation_id
    and coalesce(sibling.parent_id, sibling.conversation_id)
      = coalesce(assistant_messages.parent_id, assistant_messages.conversation_id))`

/** A listed message with its versions, when it has more than one (the pager's). */
export function withVersions(message: ChatMessage, versions: string[] | null): ChatMessage {
  return versions !== null && versions.length > 1 ? { ...message, versions } : message
}

/**
 * A send's question and the answer's placeholder, compiled once for each place they go (this runs
 * before every answer): after the thread's end, under an edited message's parent, or (a
 * regenerate, the answer alone) beside the answer it replaces. The conversation is named and moved
 * to the top, and the messages are added only if it was (it is still the user's). Both messages
 * are stamped with the send's time.
 */
export const beginSendStatements = {
  end: beginSendStatement('end'),
  edit: beginSendStatement('edit'),
  regenerate: beginSendStatement('regenerate'),
}

function beginSendStatement(place: 'end' | 'edit' | 'regenerate') {
  return reusableStatement((values: Record<string, SqlValue>) =>
    queries
      .with('touched', (db) =>
        db
          .updateTable('assistant_conversations')
          .set((eb) => ({
            title: eb.fn.coalesce('title', eb.val(values.title as string)),
            updated_at: raw<Date>`now()`,
            // Remembered for the picker: the conversation opens on the model it last used.
            model: eb.val(values.model as string | null),
          }))
          .where('id', '=', values.conversationId as string)
          .where('user_id', '=', values.userId as string)
          .returning('id'),
      )
      .insertInto('assistant_messages')
      .columns([
        'id',
        'conversation_id',
        'user_id',
        'role',
        'content',
        'status',
        'model',
        'created_at',
        'parent_id',
      ])
      .expression((eb) => {
        // Typed: a union resolves untyped parameters as text.
        const as = <T>(value: SqlValue | undefined, type: 'uuid' | 'text' | 'timestamptz') =>
          eb.cast<T>(eb.val(value as T), type)
        const row = (
          message: { id: SqlValue | undefined; role: string; content: SqlValue | undefined },
          status: ChatMessage['status'],
          model: SqlValue | undefined,
          parent: AliasableExpression<string | null>,
        ) =>
          eb
            .selectFrom('touched')
            .select([
              as<string>(message.id, 'uuid').as('id'),
              'touched.id as conversation_id',
              as<string>(values.userId, 'uuid').as('user_id'),
              as<ChatMessage['role']>(message.role, 'text').as('role'),
              as<string>(message.content, 'text').as('content'),
              as<ChatMessage['status']>(status, 'text').as('status'),
              as<string | null>(model, 'text').as('model'),
              as<Date>(values.createdAt, 'timestamptz').as('created_at'),
              parent.as('parent_id'),
            ])
        const answerUnder = (parent: AliasableExpression<string | null>) =>
          row(
            { id: values.answerId, role: 'assistant', content: '' },
            'streaming',
            values.model,
            parent,
          )
        if (place === 'regenerate') return answerUnder(as<string | null>(values.parentId, 'uuid'))
        const question = row(
          { id: values.questionId, role: 'user', content: values.question },
          'complete',
          null,
          place === 'end'
            ? threadEnd(values.conversationId as string)
            : as<string | null>(values.parentId, 'uuid'),
        )
        return question.unionAll(answerUnder(as<string | null>(values.questionId, 'uuid')))
      }),
  )
}
