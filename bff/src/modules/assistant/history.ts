import { sql as raw } from 'kysely'
import { queries } from '../../platform/db/query.ts'

/**
 * What the model may see again of a conversation, newest first: the user's messages and the
 * answers that brought text (an answer still streaming, or one that failed, has none to give),
 * at most `bounds.messages` of them and no more than fit in `bounds.chars` characters. The one
 * definition of a send's history, on one branch of the conversation (decision 031): what the model is sent (`loadForSend`, as the user) and what
 * the send holds against the plan (the quota, which reads it as the BFF).
 */
export function recentHistory(
  conversationId: string,
  userId: string,
  bounds: { messages: number; chars: number },
  /** The visible thread (null), or the path before this message (an edit or a regenerate). */
  beforeId: string | null = null,
) {
  const recent = queries
    .selectFrom('assistant_messages as message')
    .select(['message.role', 'message.content', 'message.seq'])
    .where('message.conversation_id', '=', conversationId)
    .where('message.user_id', '=', userId)
    // Only one branch: the visible thread, or the path an edit or a regenerate starts from.
    .where(
      raw<boolean>`message.id in (select thread.id from public.assistant_thread(${conversationId}::uuid, ${beforeId}::uuid) as thread)`,
    )
    .where((eb) =>
      eb.or([
        eb('message.role', '=', 'user'),
        eb.and([
          eb('message.status', 'in', ['complete', 'partial']),
          eb('message.content', '<>', ''),
        ]),
      ]),
    )
    .orderBy('message.seq', 'desc')
    .limit(bounds.messages)
  return queries
    .selectFrom(
      queries
        .selectFrom(recent.as('recent'))
        .select([
          'recent.role',
          'recent.content',
          'recent.seq',
          // The characters of this message and every newer one: the oldest that fit are kept.
          raw<number>`sum(char_length(recent.content)) over (order by recent.seq desc)`.as('chars'),
        ])
        .as('counted'),
    )
    .select(['counted.role', 'counted.content'])
    .where('counted.chars', '<=', bounds.chars)
    .orderBy('counted.seq', 'desc')
}
