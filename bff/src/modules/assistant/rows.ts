/** How stored conversations and messages read as the contract's shapes, and their columns. */
import { assistantModels, errorCatalogue, errorCodes } from '@tessera/contracts'
import type { AssistantModel, ChatMessage, Conversation, ErrorCode } from '@tessera/contracts'
import type { AssistantConversationRow, AssistantMessageRow } from '../../platform/db/schema.ts'

/** What a conversation is called until its first message (or its user) names it. */
export const UNTITLED = 'New conversation'
/** How long a title made from a first message can be. */
const DERIVED_TITLE_LENGTH = 60
export function conversationOf(
  row: Pick<AssistantConversationRow, 'id' | 'title' | 'created_at' | 'updated_at'> &
    Partial<Pick<AssistantConversationRow, 'shared' | 'model'>>,
): Conversation {
  return {
    id: row.id,
    title: row.title ?? UNTITLED,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(row.shared === undefined ? {} : { shared: row.shared }),
    ...(row.model === undefined ? {} : { model: modelOf(row.model) }),
  }
}

const knownModels: ReadonlySet<string> = new Set(assistantModels)

/** A stored model name as the catalogue knows it; null for none, or one it no longer lists. */
export function modelOf(name: string | null): AssistantModel | null {
  return name !== null && knownModels.has(name) ? (name as AssistantModel) : null
}
const knownCodes: ReadonlySet<string> = new Set(errorCodes)

export type MessageColumns = Omit<
  AssistantMessageRow,
  'seq' | 'user_id' | 'conversation_id' | 'updated_at' | 'parent_id' | 'selected'
>

export function chatMessageOf(row: MessageColumns): ChatMessage {
  const usage =
    row.prompt_tokens === null || row.completion_tokens === null
      ? null
      : {
          promptTokens: row.prompt_tokens,
          completionTokens: row.completion_tokens,
          totalTokens: row.prompt_tokens + row.completion_tokens,
          estimated: row.usage_estimated === true,
        }
  // Codes and models come from this BFF; one a newer version wrote reads as the nearest we know.
  const code =
    row.error_code === null
      ? null
      : knownCodes.has(row.error_code)
        ? (row.error_code as ErrorCode)
        : 'internal'
  return {
    id: row.id,
    role: row.role,
    content: row.content,
    status: row.status,
    model: modelOf(row.model),
    usage,
    error: code === null ? null : { code, message: errorCatalogue[code].message },
    createdAt: row.created_at.toISOString(),
  }
}

/**
 * An answer whose BFF died while it streamed: what was stored of it (nothing, as the text is written
 * when the answer ends) is kept, marked as cut off.
 */
export function interrupted(row: MessageColumns): MessageColumns {
  return {
    ...row,
    status: row.content === '' ? 'failed' : 'partial',
    error_code: 'answer_interrupted',
  }
}

/** A title from a first message: its first line, whitespace tidied, cut at a word. */
export function titleFrom(content: string): string {
  const line =
    content
      .split('\n')
      .map((text) => text.replace(/\s+/g, ' ').trim())
      .find((text) => text !== '') ?? ''
  if (line === '') return UNTITLED
  const chars = [...line]
  if (chars.length <= DERIVED_TITLE_LENGTH) return line
  const cut = chars.slice(0, DERIVED_TITLE_LENGTH - 1).join('')
  const space = cut.lastIndexOf(' ')
  return `${(space > DERIVED_TITLE_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`
}

export const messageColumns = [
  'id',
  'role',
  'content',
  'status',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'usage_estimated',
  'error_code',
  'created_at',
] as const
