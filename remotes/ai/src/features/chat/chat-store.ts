import type { Attachment, Conversation } from '@tessera/contracts/assistant'
import { asApiError } from '@tessera/plugin-react/api-error'
import type { AssistantApi } from '../../lib/assistant-api.ts'
import { describeChatError, type ChatError } from '../../lib/chat-errors.ts'
import {
  emptyThread,
  initialState,
  localUserMessage,
  withoutConversation,
  withoutUnsent,
  type AssistantState,
  type ListState,
  type SendOutcome,
  type ThreadState,
} from './chat-state.ts'
import {
  loadFirstPage,
  loadNextPage,
  refreshFirstPage,
  changeConversation,
  type ListAccess,
} from './conversation-list-pages.ts'
import { DeltaBuffer } from './delta-buffer.ts'
import type { AnswerFollower } from './answer-follow.ts'
import { createAnswerFollower, followLiveAnswers, type LiveEvents } from './live-answers.ts'
import { readAfterStop, type ListedMessages } from './read-after-stop.ts'
import type { SendInFlight, ThreadWriter } from './stream-events.ts'
import { streamSend } from './stream-send.ts'
import { planBranch, type BranchRequest, type BranchSend } from './branch-actions.ts'

export type { AssistantState, ListState, SendOutcome, ThreadState } from './chat-state.ts'

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
  /** The user's live events: answers streaming in other tabs are followed (live-answers.ts). */
  events?: LiveEvents
}

/**
 * The assistant page's state: the conversation list, each opened conversation, and the sends in
 * flight with their streams. Plain TypeScript with a subscribe/snapshot pair (React reads it with
 * useSyncExternalStore), so a stream keeps going while the person moves between conversations.
 */
export class ChatStore {
  #state: AssistantState = initialState()
  readonly #listeners = new Set<() => void>()
  readonly #options: ChatStoreOptions
  readonly #aborts = new Map<string, AbortController>()
  /** Abort reasons set by Stop, so a stopped stream is told apart from a dropped one. */
  readonly #stopped = new Set<string>()
  /** Stop was pressed while a new conversation was being created: its message is not sent. */
  #cancelStart = false
  /** An answer's words, gathered between renders. */
  readonly #deltas: DeltaBuffer
  /** What applying a send's events may change here. */
  readonly #writer: ThreadWriter
  /** What reading the conversation list may change here. */
  readonly #listAccess: ListAccess
  /** Detached from its page: streams are being ended and nothing is rendered any more. */
  #disposed = false
  /** Answers this tab follows from live events. */
  readonly #follower: AnswerFollower

  constructor(options: ChatStoreOptions) {
    this.#options = options
    this.#deltas = new DeltaBuffer(options.flushEveryMs ?? 40, (id, messageId, text) =>
      this.#setThread(id, (t) => ({
        ...t,
        sending: t.sending === null ? null : { phase: 'streaming' },
        messages: t.messages.map((m) =>
          m.id === messageId ? { ...m, content: m.content + text } : m,
        ),
      })),
    )
    this.#listAccess = {
      api: options.api,
      list: () => this.#state.list,
      setList: (change) => this.#setList(change),
      updateConversation: (conversation) =>
        this.#setThread(conversation.id, (thread) => ({ ...thread, conversation })),
      announce: (text) => this.#announce(text),
    }
    this.#writer = {
      state: () => this.#state,
      setThread: (id, change) => this.#setThread(id, change),
      setList: (change) => this.#setList(change),
      announce: (text) => this.#announce(text),
      addDelta: (id, messageId, text) => this.#deltas.add(id, messageId, text),
      dropDeltas: (id) => this.#deltas.drop(id),
      flush: () => this.#deltas.flush(),
    }
    this.#follower = createAnswerFollower({ ...this.#writer, reread: this.#reread })
  }

  #reread = (id: string): Promise<void> => this.open(id, { force: true })

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
    await loadFirstPage(this.#listAccess)
  }

  async loadMore(): Promise<void> {
    await loadNextPage(this.#listAccess)
  }

  async #refreshListHead(): Promise<void> {
    const head = await refreshFirstPage(this.#listAccess)
    for (const conversation of head) this.#listAccess.updateConversation(conversation)
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
  async send(conversationId: string | null, content: string, files: Attachment[] = []) {
    if (conversationId === null) return this.#start(content, files)
    await this.#stream(conversationId, content, files)
    return 'sent'
  }

  async #start(content: string, files: Attachment[] = []): Promise<SendOutcome> {
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
      threads: { ...this.#state.threads, [id]: emptyThread(conversation) },
    })
    this.#options.openConversation(id)
    const { started } = await this.#stream(id, content, files)
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
    this.#set(withoutConversation(this.#state, id))
  }

  /** Sends the failed message again. */
  async retry(id: string): Promise<void> {
    const failure = this.#state.threads[id]?.failure
    if (failure === undefined || failure === null) return
    if (failure.retry !== undefined) return failure.retry()
    await this.#stream(id, failure.content)
  }

  /** Drops the failure (and a message that never reached the server), giving its text back. */
  takeBack(id: string): string {
    const thread = this.#state.threads[id]
    const content = thread?.failure?.content ?? ''
    this.#setThread(id, (t) => ({
      ...t,
      failure: null,
      messages: withoutUnsent(t.messages),
    }))
    return content
  }

  /** Stop: ends the stream; the BFF keeps what arrived as a partial answer. */
  stop(id: string | null): void {
    if (id === null) {
      if (this.#state.starting !== null) this.#cancelStart = true
      return
    }
    // Heard by the replica streaming the answer, whichever tab started it (decision 032).
    this.#options.api.stopAnswers(id).catch((error: unknown) => {
      this.#announce(describeChatError(error, 'send').message)
    })
    const controller = this.#aborts.get(id)
    if (controller === undefined) return
    this.#stopped.add(id)
    controller.abort()
  }

  /** Sends and streams one message; `started` once the server stored it (the `message` event). */
  async #stream(id: string, content: string, files: Attachment[] = [], branch?: BranchSend) {
    const thread = this.#state.threads[id]
    if (thread === undefined || thread.sending !== null) return { started: false }
    const localUser = localUserMessage(content, files)
    this.#setThread(id, (t) => ({
      ...t,
      failure: null,
      sending: { phase: 'waiting' },
      // A message that never reached the server is replaced by this new attempt.
      messages: branch?.messages ?? [...withoutUnsent(t.messages), localUser],
    }))
    this.#announce('Sent. The assistant is answering.')

    const controller = new AbortController()
    this.#aborts.set(id, controller)
    const localUserId = branch?.questionId ?? localUser.id
    const send: SendInFlight = { localUserId, content, assistantId: null }
    let stopped = false
    try {
      const outcome = await streamSend({
        writer: this.#writer,
        id,
        send,
        events:
          branch?.events(controller.signal) ??
          this.#options.api.sendMessage(id, content, controller.signal, { attachments: files }),
        stoppedByPerson: () => this.#stopped.has(id),
        detached: () => this.#disposed,
      })
      stopped = outcome.stopped
    } finally {
      this.#deltas.flush()
      this.#aborts.delete(id)
      this.#stopped.delete(id)
      this.#setThread(id, (t) => ({ ...t, sending: null }))
      if (!this.#disposed) {
        this.#options.onSendSettled?.()
        // A send refused before it started changed nothing the list shows.
        if (send.assistantId !== null || stopped) void this.#refreshListHead()
        // Stopped before the server said what it stored: read what it stores for the stop.
        // A branch is read again whatever happened: the list carries the versions to page.
        if (branch !== undefined) void this.open(id, { force: true })
        else if (stopped && send.assistantId === null) void this.#readAfterStop(id, localUser.id)
      }
    }
    return { started: send.assistantId !== null }
  }

  /** Shows a conversation as the BFF listed it, unless a send has started in it meanwhile. */
  #showListed(id: string, body: ListedMessages) {
    if (this.#state.threads[id]?.sending) return
    this.#setThread(id, (thread) => ({
      ...thread,
      status: 'ready',
      conversation: body.conversation,
      messages: body.messages,
    }))
    this.#follower.settle(id)
  }

  /** After a Stop before the send's `message` event: see readAfterStop. */
  async #readAfterStop(id: string, localUserId: string): Promise<void> {
    await readAfterStop({
      read: () => this.#options.api.listMessages(id),
      known: (this.#state.threads[id]?.messages ?? []).filter((m) => m.id !== localUserId).length,
      abandoned: () => this.#disposed || Boolean(this.#state.threads[id]?.sending),
      show: (body) => {
        if (!this.#disposed) this.#showListed(id, body)
      },
      reopen: () => this.open(id, { force: true }),
      pauseMs: this.#options.stopReadPauseMs ?? 250,
    })
  }

  /** Edits a question or regenerates an answer (branch-actions.ts); a failure retries the same. */
  async branch(id: string, request: BranchRequest): Promise<void> {
    const thread = this.#state.threads[id]
    const plan = thread && planBranch(this.#options.api, id, thread.messages, request)
    if (!plan) return
    await this.#stream(id, plan.content, [], plan)
    const retry = () => this.branch(id, request)
    this.#setThread(id, (t) => (t.failure ? { ...t, failure: { ...t.failure, retry } } : t))
  }

  /** Shows another version of a message; resolves with the failure, or null. */
  async showVersion(id: string, messageId: string): Promise<ChatError | null> {
    try {
      this.#showListed(id, await this.#options.api.showVersion(id, messageId))
    } catch (error) {
      return describeChatError(error, 'load')
    }
    const versions = this.#state.threads[id]?.messages.find((m) => m.id === messageId)?.versions
    if (versions) this.#announce(`Version ${versions.indexOf(messageId) + 1} of ${versions.length}`)
    return null
  }

  // Renaming, sharing and deleting.

  /** Renames a conversation; resolves with the failure, or null when it worked. */
  rename(id: string, title: string): Promise<ChatError | null> {
    return changeConversation(
      this.#listAccess,
      () => this.#options.api.renameConversation(id, title),
      (conversation) => `Renamed to ${conversation.title}.`,
    )
  }

  /** Shares a conversation with its team, or stops; resolves with the failure, or null. */
  share(id: string, shared: boolean): Promise<ChatError | null> {
    return changeConversation(
      this.#listAccess,
      () => this.#options.api.shareConversation(id, shared),
      () => (shared ? 'Shared with your team.' : 'No longer shared.'),
    )
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
    this.#set(withoutConversation(this.#state, id))
    return null
  }

  /**
   * Starts the store for a mounted page; the returned function ends every stream (the page is
   * going away; the BFF keeps what arrived). Attaching again (React's StrictMode remount) revives it.
   */
  attach(): () => void {
    this.#disposed = false
    const events = this.#options.events
    const unfollow =
      events === undefined
        ? () => undefined
        : followLiveAnswers(events, this.#follower, { state: this.getState, reread: this.#reread })
    return () => {
      unfollow()
      this.#disposed = true
      this.#deltas.flush()
      for (const controller of this.#aborts.values()) controller.abort()
    }
  }
}
