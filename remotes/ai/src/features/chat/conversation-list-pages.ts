import type { Conversation } from '@tessera/contracts/assistant'
import type { AssistantApi } from '../../lib/assistant-api.ts'
import { describeChatError, type ChatError } from '../../lib/chat-errors.ts'
import type { ListState } from './chat-state.ts'

/** What reading and changing the conversation list needs of the store. */
export interface ListAccess {
  api: AssistantApi
  list(): ListState
  setList(change: Partial<ListState>): void
  /** Puts a changed conversation in its open thread, if it is open. */
  updateConversation(conversation: Conversation): void
  announce(text: string): void
}

/**
 * A change the BFF answers with the conversation (a rename, sharing): put in the list and its
 * thread, and announced. Resolves with the failure, or null when it worked.
 */
export async function changeConversation(
  { list, setList, updateConversation, announce }: ListAccess,
  call: () => Promise<Conversation>,
  announcement: (conversation: Conversation) => string,
): Promise<ChatError | null> {
  try {
    const conversation = await call()
    setList({
      conversations: list().conversations.map((c) => (c.id === conversation.id ? conversation : c)),
    })
    updateConversation(conversation)
    announce(announcement(conversation))
    return null
  } catch (error) {
    return describeChatError(error, 'load')
  }
}

/** Reads the newest page of conversations, replacing the list. */
export async function loadFirstPage({ api, setList }: ListAccess): Promise<void> {
  setList({ status: 'loading', error: null })
  try {
    const page = await api.listConversations(null)
    setList({ status: 'ready', conversations: page.conversations, nextCursor: page.nextCursor })
  } catch (error) {
    setList({ status: 'failed', error: describeChatError(error, 'load') })
  }
}

/** Reads the next older page, if any, adding the conversations not listed yet. */
export async function loadNextPage({ api, list, setList }: ListAccess): Promise<void> {
  const { nextCursor, loadingMore } = list()
  if (nextCursor === null || loadingMore) return
  setList({ loadingMore: true, error: null })
  try {
    const page = await api.listConversations(nextCursor)
    const seen = new Set(list().conversations.map((c) => c.id))
    setList({
      loadingMore: false,
      conversations: [
        ...list().conversations,
        ...page.conversations.filter((c) => !seen.has(c.id)),
      ],
      nextCursor: page.nextCursor,
    })
  } catch (error) {
    setList({ loadingMore: false, error: describeChatError(error, 'load') })
  }
}

/**
 * Reads the first page again (a send renamed or moved a conversation) and keeps the rest;
 * resolves with the conversations read, or none when the read failed.
 */
export async function refreshFirstPage({
  api,
  list,
  setList,
}: ListAccess): Promise<Conversation[]> {
  try {
    const page = await api.listConversations(null)
    const head = new Set(page.conversations.map((c) => c.id))
    const rest = list().conversations.filter((c) => !head.has(c.id))
    setList({
      status: 'ready',
      error: null,
      conversations: [...page.conversations, ...rest],
      nextCursor: list().nextCursor ?? page.nextCursor,
    })
    return page.conversations
  } catch (error) {
    // The list is a convenience here; the conversation itself is fine and already shown.
    console.warn('The conversation list could not be refreshed', error)
    return []
  }
}
