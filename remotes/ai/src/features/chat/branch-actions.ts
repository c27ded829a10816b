import type { ChatMessage } from '@tessera/contracts/assistant'
import type { AssistantApi, ChatStreamEvent } from '../../lib/assistant-api.ts'
import type { ChatError } from '../../lib/chat-errors.ts'
import { localUserMessage } from './chat-state.ts'

/** A new version of a message (decision 031): an edited question, or a regenerated answer. */
export type BranchRequest =
  { kind: 'edit'; messageId: string; content: string } | { kind: 'regenerate'; messageId: string }

/** How a branch is sent: the thread shown while its answer comes, and where the answer comes from. */
export interface BranchSend {
  /** Everything before the message, then the question (the edit's local copy, or the stored one). */
  messages: ChatMessage[]
  /** The question's id in `messages`: the stream's `message` event replaces it. */
  questionId: string
  /** The question's text (a failure offers it back). */
  content: string
  events: (signal: AbortSignal) => AsyncIterable<ChatStreamEvent>
}

/** Plans an edit or a regenerate of a message shown in conversation `id`; null if it is not there. */
export function planBranch(
  api: AssistantApi,
  id: string,
  messages: readonly ChatMessage[],
  request: BranchRequest,
): BranchSend | null {
  const index = messages.findIndex((m) => m.id === request.messageId)
  if (index < 0) return null
  if (request.kind === 'edit') {
    // The answers after the old version stay with it on the server; here they leave the thread.
    const local = localUserMessage(request.content)
    return {
      messages: [...messages.slice(0, index), local],
      questionId: local.id,
      content: request.content,
      events: (signal) => api.editMessage(id, request.messageId, request.content, signal),
    }
  }
  const question = messages[index - 1]
  if (question === undefined) return null
  return {
    messages: messages.slice(0, index),
    questionId: question.id,
    content: question.content,
    events: (signal) => api.regenerateMessage(id, request.messageId, signal),
  }
}

/** What the thread's messages may do (none while an answer streams or in a shared conversation). */
export interface MessageActions {
  edit: (messageId: string, content: string) => void
  regenerate: (messageId: string) => void
  /** Shows another version; resolves with the failure, or null. */
  showVersion: (messageId: string) => Promise<ChatError | null>
}

/** The actions of conversation `id`'s messages, through the page's store. */
export function messageActions(
  store: {
    branch: (id: string, request: BranchRequest) => Promise<void>
    showVersion: (id: string, messageId: string) => Promise<ChatError | null>
  },
  id: string,
): MessageActions {
  return {
    edit: (messageId, content) => void store.branch(id, { kind: 'edit', messageId, content }),
    regenerate: (messageId) => void store.branch(id, { kind: 'regenerate', messageId }),
    showVersion: (messageId) => store.showVersion(id, messageId),
  }
}
