import type { Attachment } from '@tessera/contracts/attachments'
import type { ChatMessage, Conversation } from '@tessera/contracts/assistant'
import type { ChatError } from '../../lib/chat-errors.ts'

/** One conversation as the page holds it. */
export interface ThreadState {
  id: string
  status: 'loading' | 'ready' | 'failed'
  conversation: Conversation | null
  /** Oldest first: stored messages, then the ones of a send in flight. */
  messages: ChatMessage[]
  loadError: ChatError | null
  /** An answer on its way: `waiting` until its first words arrive. */
  sending: { phase: 'waiting' | 'streaming' } | null
  /** The last send failed: why, and the text to send again or put back in the composer. */
  failure: { error: ChatError; content: string; retry?: () => Promise<void> } | null
}

export interface ListState {
  status: 'loading' | 'ready' | 'failed'
  /** Newest first. */
  conversations: Conversation[]
  nextCursor: string | null
  loadingMore: boolean
  error: ChatError | null
}

export interface AssistantState {
  list: ListState
  threads: Readonly<Record<string, ThreadState>>
  /** What the polite live region reads out next; the id makes a repeated sentence new. */
  announcement: { id: number; text: string }
  /**
   * A first message on the new-conversation page: its conversation is being created (`failure`
   * null), or it was refused before anything was stored (the empty conversation is gone again).
   */
  starting: { content: string; failure: ChatError | null } | null
}

/** How a send ended for the page: sent (whatever the answer did), stopped before it left, or refused. */
export type SendOutcome = 'sent' | 'cancelled' | ChatError

/** Longest stretch of an answer the live region reads out once it is complete. */
const ANNOUNCE_LIMIT = 600

/** The local copy of a message that never reached the server is marked as not sent. */
export function markUnsent(messages: ChatMessage[], localUserId: string): ChatMessage[] {
  return messages.map((m) => (m.id === localUserId ? { ...m, status: 'failed' } : m))
}

/** Drops the local copy of a message that never reached the server. */
export function withoutUnsent(messages: ChatMessage[]): ChatMessage[] {
  return messages.filter((m) => !(m.id.startsWith('local-') && m.status === 'failed'))
}

/** An answer as the live region reads it out: one line, cut after ANNOUNCE_LIMIT characters. */
export function shorten(text: string): string {
  const plain = text.replace(/\s+/g, ' ').trim()
  return plain.length <= ANNOUNCE_LIMIT
    ? plain
    : `${plain.slice(0, ANNOUNCE_LIMIT)}… The rest is in the conversation.`
}

/** The state of a page that has loaded nothing yet. */
export function initialState(): AssistantState {
  return {
    list: {
      status: 'loading',
      conversations: [],
      nextCursor: null,
      loadingMore: false,
      error: null,
    },
    threads: {},
    announcement: { id: 0, text: '' },
    starting: null,
  }
}

/** A conversation just created: opened, with nothing in it yet. */
export function emptyThread(conversation: Conversation): ThreadState {
  return {
    id: conversation.id,
    status: 'ready',
    conversation,
    messages: [],
    loadError: null,
    sending: null,
    failure: null,
  }
}

/** The state without a conversation: neither in the list nor among the opened ones. */
export function withoutConversation(state: AssistantState, id: string): AssistantState {
  const threads = { ...state.threads }
  delete threads[id]
  return {
    ...state,
    threads,
    list: { ...state.list, conversations: state.list.conversations.filter((c) => c.id !== id) },
  }
}

let localIds = 0

/** The page's own copy of a message being sent, until the server says how it stored it. */
export function localUserMessage(content: string, files: Attachment[] = []): ChatMessage {
  return {
    ...(files.length > 0 ? { attachments: files } : {}),
    id: `local-user-${++localIds}`,
    role: 'user',
    content,
    status: 'complete',
    model: null,
    usage: null,
    error: null,
    createdAt: new Date().toISOString(),
  }
}

/** The first message of a conversation still being created (or refused: not sent). */
export function startingMessage(content: string, refused: boolean): ChatMessage {
  return {
    id: 'starting',
    role: 'user',
    content,
    status: refused ? 'failed' : 'complete',
    model: null,
    usage: null,
    error: null,
    createdAt: new Date().toISOString(),
  }
}
