/**
 * The branches of a conversation (decision 031): messages form a tree, and the visible thread is
 * the path through each selected version (supabase/migrations/20261126143000_*.sql).
 */
import type { ChatMessage } from '@tessera/contracts'
import { sql as raw } from 'kysely'
import { queries } from '../../platform/db/query.ts'

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
