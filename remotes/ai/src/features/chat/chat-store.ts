import type { ChatMessage, Conversation } from '@tessera/contracts/assistant'
import { asApiError, isAbort } from '@tessera/plugin-react/api-error'
import type { AssistantApi, ChatStreamEvent } from '../../lib/assistant-api.ts'
import { chatErrorOf, describeChatError, type ChatError } from '../../lib/chat-errors.ts'

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
  failure: { error: ChatError; content: string } | null
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

export interface ChatStoreOptions {
  api: AssistantApi
  /** Opens a conversation's page (after the first message created it), or the new one (null). */
  openConversation: (id: string | null) => void
  /** Called when a send has ended, however it ended (the usage meter reads the month again). */
  onSendSettled?: () => void
  /** How long deltas are gathered before the thread re-renders (ms). */
  flushEveryMs?: number
  /** Between reads of a conversation after an early Stop (ms). */
  stopReadPauseMs?: number
}

/** Reads of a conversation after an early Stop, before the page shows it as it is. */
const STOP_READ_ATTEMPTS = 12

/** Longest stretch of an answer the live region reads out once it is complete. */
const ANNOUNCE_LIMIT = 600

let localIds = 0
const localId = (what: string) => `local-${what}-${++localIds}`

/**
 * The assistant page's state: the conversation list, each opened conversation, and the sends in
 * flight with their streams. Plain TypeScript with a subscribe/snapshot pair (React reads it with
 * useSyncExternalStore), so a stream keeps going while the person moves between conversations.
 */
export class ChatStore {
  #state: AssistantState = {
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
  readonly #listeners = new Set<() => void>()
  readonly #options: ChatStoreOptions
  readonly #aborts = new Map<string, AbortController>()
  /** Abort reasons set by Stop, so a stopped stream is told apart from a dropped one. */
  readonly #stopped = new Set<string>()
  /** Stop was pressed while a new conversation was being created: its message is not sent. */
  #cancelStart = false
  /** Deltas not rendered yet, per conversation: the answer they belong to and their text. */
  readonly #pendingText = new Map<string, { messageId: string; text: string }>()
  #flushTimer: ReturnType<typeof setTimeout> | null = null
  /** Detached from its page: streams are being ended and nothing is rendered any more. */
  #disposed = false

  constructor(options: ChatStoreOptions) {
    this.#options = options
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  getState = (): AssistantState => this.#state

  #set(next: AssistantState) {
    this.#state = next
    // Detached, the state stays true (a re-attached page finds it whole) but nothing renders.
    if (this.#disposed) return
    for (const listener of [...this.#listeners]) listener()
  }

  #setList(change: Partial<ListState>) {
    this.#set({ ...this.#state, list: { ...this.#state.list, ...change } })
  }

  #setThread(id: string, change: (thread: ThreadState) => ThreadState) {
    const thread = this.#state.threads[id]
    if (thread === undefined) return
    this.#set({ ...this.#state, threads: { ...this.#state.threads, [id]: change(thread) } })
  }

  #announce(text: string) {
    this.#set({ ...this.#state, announcement: { id: this.#state.announcement.id + 1, text } })
  }

  // The conversation list.

  async loadList(): Promise<void> {
    this.#setList({ status: 'loading', error: null })
    try {
      const page = await this.#options.api.listConversations(null)
      this.#setList({
        status: 'ready',
        conversations: page.conversations,
        nextCursor: page.nextCursor,
      })
    } catch (error) {
      this.#setList({ status: 'failed', error: describeChatError(error, 'load') })
    }
  }

  async loadMore(): Promise<void> {
    const { nextCursor, loadingMore } = this.#state.list
    if (nextCursor === null || loadingMore) return
    this.#setList({ loadingMore: true, error: null })
    try {
      const page = await this.#options.api.listConversations(nextCursor)
      const seen = new Set(this.#state.list.conversations.map((c) => c.id))
      this.#setList({
        loadingMore: false,
        conversations: [
          ...this.#state.list.conversations,
          ...page.conversations.filter((c) => !seen.has(c.id)),
        ],
        nextCursor: page.nextCursor,
      })
    } catch (error) {
      this.#setList({ loadingMore: false, error: describeChatError(error, 'load') })
    }
  }

  /** Reads the first page again (a send renamed or moved a conversation) and keeps the rest. */
  async #refreshListHead(): Promise<void> {
    try {
      const page = await this.#options.api.listConversations(null)
      const head = new Set(page.conversations.map((c) => c.id))
      const rest = this.#state.list.conversations.filter((c) => !head.has(c.id))
      this.#setList({
        status: 'ready',
        error: null,
        conversations: [...page.conversations, ...rest],
        nextCursor: this.#state.list.nextCursor ?? page.nextCursor,
      })
      for (const conversation of page.conversations) this.#updateConversation(conversation)
    } catch (error) {
      // The list is a convenience here; the conversation itself is fine and already shown.
      console.warn('The conversation list could not be refreshed', error)
    }
  }

  #updateConversation(conversation: Conversation) {
    if (this.#state.threads[conversation.id] === undefined) return
    this.#setThread(conversation.id, (thread) => ({ ...thread, conversation }))
  }

  // One conversation.

  /** Loads a conversation's messages, unless they are here already (or streaming). */
  async open(id: string, options: { force?: boolean } = {}): Promise<void> {
    const existing = this.#state.threads[id]
    if (existing !== undefined && existing.status !== 'failed' && !options.force) return
    if (existing?.sending) return
    const conversation =
      existing?.conversation ?? this.#state.list.conversations.find((c) => c.id === id) ?? null
    this.#set({
      ...this.#state,
      threads: {
        ...this.#state.threads,
        [id]: {
          id,
          status: existing?.status === 'ready' ? 'ready' : 'loading',
          conversation,
          messages: existing?.messages ?? [],
          loadError: null,
          sending: null,
          failure: existing?.failure ?? null,
        },
      },
    })
    try {
      this.#showListed(id, await this.#options.api.listMessages(id))
    } catch (error) {
      this.#setThread(id, (thread) => ({
        ...thread,
        status: 'failed',
        loadError: describeChatError(error, 'load'),
      }))
    }
  }

  /**
   * Sends a message: into `conversationId`, or into a new conversation (created first, then
   * opened). Resolves once the answer has ended, however it ended.
   */
  async send(conversationId: string | null, content: string): Promise<SendOutcome> {
    if (conversationId === null) return this.#start(content)
    await this.#stream(conversationId, content)
    return 'sent'
  }

  async #start(content: string): Promise<SendOutcome> {
    if (this.#state.starting !== null && this.#state.starting.failure === null) return 'cancelled'
    // Shown at once (the message, a thinking answer, Stop) while the conversation is created.
    this.#cancelStart = false
    this.#set({ ...this.#state, starting: { content, failure: null } })
    this.#announce('Sent. The assistant is answering.')
    let conversation: Conversation
    try {
      conversation = await this.#options.api.createConversation()
    } catch (error) {
      return this.#startFailed(content, describeChatError(error, 'send'))
    }
    const id = conversation.id
    if (this.#cancelStart) {
      this.#set({ ...this.#state, starting: null })
      await this.#discard(id)
      this.#announce('Stopped before the message was sent.')
      return 'cancelled'
    }
    this.#set({
      ...this.#state,
      starting: null,
      list: {
        ...this.#state.list,
        conversations: [conversation, ...this.#state.list.conversations],
      },
      threads: {
        ...this.#state.threads,
        [id]: {
          id,
          status: 'ready',
          conversation,
          messages: [],
          loadError: null,
          sending: null,
          failure: null,
        },
      },
    })
    this.#options.openConversation(id)
    const { started } = await this.#stream(id, content)
    const failure = this.#state.threads[id]?.failure
    if (started || failure === undefined || failure === null || this.#disposed) return 'sent'
    // Refused before anything was stored (the plan's limit, the content filter): an empty
    // conversation would only clutter the list, so the message waits on the new page instead.
    await this.#discard(id)
    this.#options.openConversation(null)
    return this.#startFailed(content, failure.error)
  }

  #startFailed(content: string, failure: ChatError): ChatError {
    this.#set({ ...this.#state, starting: { content, failure } })
    this.#announce(failure.message)
    return failure
  }

  /** Sends the first message that failed on the new-conversation page again. */
  async retryStart(): Promise<SendOutcome> {
    const starting = this.#state.starting
    if (starting === null || starting.failure === null) return 'cancelled'
    return this.#start(starting.content)
  }

  /** Drops the failed first message, giving its text back for editing. */
  takeBackStart(): string {
    const content = this.#state.starting?.failure ? this.#state.starting.content : ''
    if (content !== '') this.#set({ ...this.#state, starting: null })
    return content
  }

  /** Deletes a conversation nobody will see (best effort: an empty one left over is harmless). */
  async #discard(id: string): Promise<void> {
    try {
      await this.#options.api.deleteConversation(id)
    } catch (error) {
      console.warn('An empty conversation could not be deleted', error)
    }
    const threads = { ...this.#state.threads }
    delete threads[id]
    this.#set({
      ...this.#state,
      threads,
      list: {
        ...this.#state.list,
        conversations: this.#state.list.conversations.filter((c) => c.id !== id),
      },
    })
  }

  /** Sends the failed message again. */
  async retry(id: string): Promise<void> {
    const failure = this.#state.threads[id]?.failure
    if (failure === undefined || failure === null) return
    await this.#stream(id, failure.content)
  }

  /** Drops the failure (and a message that never reached the server), giving its text back. */
  takeBack(id: string): string {
    const thread = this.#state.threads[id]
    const content = thread?.failure?.content ?? ''
    this.#setThread(id, (t) => ({
      ...t,
      failure: null,
      messages: t.messages.filter((m) => !(m.id.startsWith('local-') && m.status === 'failed')),
    }))
    return content
  }

  /** Stop: ends the stream; the BFF keeps what arrived as a partial answer. */
  stop(id: string | null): void {
    if (id === null) {
      if (this.#state.starting !== null) this.#cancelStart = true
      return
    }
    const controller = this.#aborts.get(id)
    if (controller === undefined) return
    this.#stopped.add(id)
    controller.abort()
  }

  /** Sends and streams one message; `started` once the server stored it (the `message` event). */
  async #stream(id: string, content: string): Promise<{ started: boolean }> {
    const thread = this.#state.threads[id]
    if (thread === undefined || thread.sending !== null) return { started: false }
    const now = new Date().toISOString()
    const localUser: ChatMessage = {
      id: localId('user'),
      role: 'user',
      content,
      status: 'complete',
      model: null,
      usage: null,
      error: null,
      createdAt: now,
    }
    this.#setThread(id, (t) => ({
      ...t,
      failure: null,
      sending: { phase: 'waiting' },
      // A message that never reached the server is replaced by this new attempt.
      messages: [
        ...t.messages.filter((m) => !(m.id.startsWith('local-') && m.status === 'failed')),
        localUser,
      ],
    }))
    this.#announce('Sent. The assistant is answering.')

    const controller = new AbortController()
    this.#aborts.set(id, controller)
    let assistantId: string | null = null
    let ended = false
    let stopped = false
    try {
      for await (const event of this.#options.api.sendMessage(id, content, controller.signal)) {
        assistantId = this.#apply(id, { localUserId: localUser.id, content, assistantId }, event)
        if (event.type === 'done' || event.type === 'error') {
          ended = true
          break
        }
      }
      if (!ended) {
        // The stream closed without `done` or `error`: the connection dropped mid-answer.
        this.#fail(
          id,
          localUser.id,
          assistantId,
          content,
          chatErrorOf('answer_interrupted', '', null),
        )
      }
    } catch (error) {
      if (isAbort(error) && this.#stopped.has(id)) {
        stopped = true
        this.#flush()
        this.#markStopped(id, assistantId)
      } else if (!(isAbort(error) && this.#disposed)) {
        this.#fail(id, localUser.id, assistantId, content, describeChatError(error, 'send'), error)
      }
    } finally {
      this.#flush()
      this.#aborts.delete(id)
      this.#stopped.delete(id)
      this.#setThread(id, (t) => ({ ...t, sending: null }))
      if (!this.#disposed) {
        this.#options.onSendSettled?.()
        // A send refused before it started changed nothing the list shows.
        if (assistantId !== null || stopped) void this.#refreshListHead()
        // Stopped before the server said what it stored: read what it stores for the stop.
        if (stopped && assistantId === null) void this.#readAfterStop(id, localUser.id)
      }
    }
    return { started: assistantId !== null }
  }

  /** Applies one stream event; returns the id of the answer being written. */
  #apply(
    id: string,
    send: { localUserId: string; content: string; assistantId: string | null },
    event: ChatStreamEvent,
  ): string | null {
    const { localUserId, content, assistantId } = send
    switch (event.type) {
      case 'message': {
        const { user, assistant, conversation } = event.data
        this.#setThread(id, (t) => ({
          ...t,
          conversation,
          messages: [...t.messages.filter((m) => m.id !== localUserId), user, assistant],
        }))
        // The first message names the conversation: the list shows the name at once.
        this.#setList({
          conversations: this.#state.list.conversations.map((c) =>
            c.id === conversation.id ? conversation : c,
          ),
        })
        return assistant.id
      }
      case 'delta': {
        if (assistantId === null) return null
        const pending = this.#pendingText.get(id)
        this.#pendingText.set(id, {
          messageId: assistantId,
          text: (pending?.text ?? '') + event.data.text,
        })
        this.#scheduleFlush()
        return assistantId
      }
      case 'usage': {
        if (assistantId === null) return null
        this.#flush()
        this.#replaceMessage(id, assistantId, (m) => ({ ...m, usage: event.data }))
        return assistantId
      }
      case 'done': {
        this.#pendingText.delete(id)
        const { message } = event.data
        this.#replaceMessage(id, assistantId ?? message.id, () => message)
        this.#announce(`The assistant answered: ${shorten(message.content)}`)
        return message.id
      }
      case 'error': {
        this.#flush()
        const { code, message, requestId, assistant, retryAfterSeconds } = event.data
        const error = chatErrorOf(
          code,
          message,
          requestId,
          retryAfterSeconds === undefined ? undefined : { retryAfterSeconds },
        )
        this.#setThread(id, (t) => {
          const messages =
            assistant === null
              ? t.messages.filter((m) => m.id !== assistantId)
              : t.messages.map((m) => (m.id === (assistantId ?? assistant.id) ? assistant : m))
          return {
            ...t,
            messages: markUnsent(messages, localUserId),
            failure: { error, content },
          }
        })
        this.#announce(error.message)
        return assistant?.id ?? assistantId
      }
    }
  }

  #fail(
    id: string,
    localUserId: string,
    assistantId: string | null,
    content: string,
    error: ChatError,
    cause?: unknown,
  ) {
    this.#flush()
    // A connection that dropped mid-answer leaves the answer partial, as the BFF stores it.
    const interrupted = asApiError(cause) === null
    this.#setThread(id, (t) => ({
      ...t,
      messages: markUnsent(t.messages, localUserId).map((m) =>
        m.id === assistantId && m.status === 'streaming'
          ? {
              ...m,
              status: m.content === '' ? 'failed' : 'partial',
              error: interrupted ? { code: 'answer_interrupted', message: error.message } : null,
            }
          : m,
      ),
      failure: { error, content },
    }))
    this.#announce(error.message)
  }

  /** Shows a conversation as the BFF listed it, unless a send has started in it meanwhile. */
  #showListed(id: string, body: Awaited<ReturnType<AssistantApi['listMessages']>>) {
    if (this.#state.threads[id]?.sending) return
    this.#setThread(id, (thread) => ({
      ...thread,
      status: 'ready',
      conversation: body.conversation,
      messages: body.messages,
    }))
  }

  /**
   * After a Stop that came before the send's `message` event (the BFF sends it with the first
   * token): reads the conversation until the BFF has stored how the stopped answer ended, which it
   * does a moment after the browser leaves. Until then the list lacks the send, or its answer reads
   * `streaming`, which the page would show as being written elsewhere; the thread is replaced only
   * once the send's pair is there and ended (or after the last try), so the person's message does
   * not flicker meanwhile.
   */
  async #readAfterStop(id: string, localUserId: string): Promise<void> {
    // The stored messages the page had before this send: the send's pair comes after them.
    const known = (this.#state.threads[id]?.messages ?? []).filter(
      (m) => m.id !== localUserId,
    ).length
    for (let attempt = 1; ; attempt += 1) {
      if (this.#disposed || this.#state.threads[id]?.sending) return
      let body: Awaited<ReturnType<AssistantApi['listMessages']>>
      try {
        body = await this.#options.api.listMessages(id)
      } catch {
        // The page's own loading and its error say what went wrong, and offer to try again.
        return this.open(id, { force: true })
      }
      const last = body.messages.at(-1)
      const settled =
        body.messages.length >= known + 2 &&
        body.messages.at(-2)?.role === 'user' &&
        last?.role === 'assistant' &&
        last.status !== 'streaming'
      if (settled || attempt >= STOP_READ_ATTEMPTS) {
        if (!this.#disposed) this.#showListed(id, body)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, this.#options.stopReadPauseMs ?? 250))
    }
  }

  #markStopped(id: string, assistantId: string | null) {
    this.#setThread(id, (t) => ({
      ...t,
      messages: t.messages.map((m) =>
        m.id === assistantId && m.status === 'streaming'
          ? { ...m, status: 'partial', error: null }
          : m,
      ),
      failure: null,
    }))
    this.#announce('Stopped. The answer so far is kept.')
  }

  #replaceMessage(id: string, messageId: string, change: (message: ChatMessage) => ChatMessage) {
    this.#setThread(id, (t) => ({
      ...t,
      messages: t.messages.map((m) => (m.id === messageId ? change(m) : m)),
    }))
  }

  #scheduleFlush() {
    if (this.#flushTimer !== null) return
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = null
      this.#flush()
    }, this.#options.flushEveryMs ?? 40)
  }

  /** Appends the gathered deltas: one render per few tokens instead of one per token. */
  #flush() {
    if (this.#flushTimer !== null) {
      clearTimeout(this.#flushTimer)
      this.#flushTimer = null
    }
    const pending = [...this.#pendingText]
    this.#pendingText.clear()
    for (const [id, { messageId, text }] of pending) {
      this.#setThread(id, (t) => ({
        ...t,
        sending: t.sending === null ? null : { phase: 'streaming' },
        messages: t.messages.map((m) =>
          m.id === messageId ? { ...m, content: m.content + text } : m,
        ),
      }))
    }
  }

  // Renaming and deleting.

  /** Renames a conversation; resolves with the failure, or null when it worked. */
  async rename(id: string, title: string): Promise<ChatError | null> {
    try {
      const conversation = await this.#options.api.renameConversation(id, title)
      this.#setList({
        conversations: this.#state.list.conversations.map((c) => (c.id === id ? conversation : c)),
      })
      this.#updateConversation(conversation)
      this.#announce(`Renamed to ${conversation.title}.`)
      return null
    } catch (error) {
      return describeChatError(error, 'load')
    }
  }

  /** Deletes a conversation (stopping its answer first); resolves with the failure, or null. */
  async remove(id: string): Promise<ChatError | null> {
    this.stop(id)
    try {
      await this.#options.api.deleteConversation(id)
    } catch (error) {
      const apiError = asApiError(error)
      // Already gone (another tab deleted it): what the person asked for is true.
      if (apiError?.code !== 'not_found') return describeChatError(error, 'load')
    }
    const threads = { ...this.#state.threads }
    delete threads[id]
    this.#set({
      ...this.#state,
      threads,
      list: {
        ...this.#state.list,
        conversations: this.#state.list.conversations.filter((c) => c.id !== id),
      },
    })
    return null
  }

  /**
   * Starts the store for a mounted page; the returned function ends every stream (the page is
   * going away; the BFF keeps what arrived). Attaching again (React's StrictMode remount) revives it.
   */
  attach(): () => void {
    this.#disposed = false
    return () => {
      this.#disposed = true
      this.#flush()
      for (const controller of this.#aborts.values()) controller.abort()
    }
  }
}

/** The local copy of a message that never reached the server is marked as not sent. */
function markUnsent(messages: ChatMessage[], localUserId: string): ChatMessage[] {
  return messages.map((m) => (m.id === localUserId ? { ...m, status: 'failed' } : m))
}

function shorten(text: string): string {
  const plain = text.replace(/\s+/g, ' ').trim()
  return plain.length <= ANNOUNCE_LIMIT
    ? plain
    : `${plain.slice(0, ANNOUNCE_LIMIT)}… The rest is in the conversation.`
}
