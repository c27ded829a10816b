/**
 * Following an answer another tab (or this tab before a reload) started, from the user's live
 * events (docs/decisions/032): each batch of text carries its character offset, so a tab that
 * read the stored text so far applies only what extends it — no duplicate, no gap — and the
 * answer's end replaces whatever was gathered with the stored message, once.
 */
import type { ChatMessage } from '@tessera/contracts/assistant'
import type { AnswerDelta, AnswerDone } from '@tessera/contracts/assistant-live'

/**
 * The answer's text with `delta` applied: extended when the delta reaches past its end, the same
 * text when the delta holds nothing new (a repeat, or text already read from the row), or null
 * when the delta starts past its end (a batch in between has not arrived yet).
 */
export function extendAnswer(text: string, delta: { offset: number; text: string }): string | null {
  if (delta.offset > text.length) return null
  const end = delta.offset + delta.text.length
  if (end <= text.length) return text
  return text.slice(0, delta.offset) + delta.text
}

/**
 * Applies `deltas` (in any order, repeated or not) to `text` as far as they reach without a gap;
 * returns the text and the deltas still waiting for the text before them.
 */
export function extendWith(
  text: string,
  deltas: readonly AnswerDelta[],
): { text: string; waiting: AnswerDelta[] } {
  let current = text
  const waiting = [...deltas].sort((a, b) => a.offset - b.offset)
  for (;;) {
    const next = waiting.findIndex((delta) => delta.offset <= current.length)
    if (next === -1) break
    const [delta] = waiting.splice(next, 1)
    current = extendAnswer(current, delta!) ?? current
  }
  // What ends within the text now will never extend it.
  return {
    text: current,
    waiting: waiting.filter((delta) => delta.offset + delta.text.length > current.length),
  }
}

/** An `assistant.answer.delta` event's data, checked by hand (the remote ships no zod). */
export function asAnswerDelta(data: unknown): AnswerDelta | null {
  if (typeof data !== 'object' || data === null) return null
  const { conversationId, messageId, offset, text } = data as Record<string, unknown>
  if (typeof conversationId !== 'string' || typeof messageId !== 'string') return null
  if (typeof text !== 'string' || typeof offset !== 'number' || !Number.isInteger(offset))
    return null
  if (offset < 0) return null
  return { conversationId, messageId, offset, text }
}

/** An `assistant.answer.done` event's data, checked by hand. */
export function asAnswerDone(data: unknown): AnswerDone | null {
  if (typeof data !== 'object' || data === null) return null
  const { conversationId, message } = data as Record<string, unknown>
  if (typeof conversationId !== 'string' || typeof message !== 'object' || message === null)
    return null
  const { id, role, content, status } = message as Record<string, unknown>
  if (typeof id !== 'string' || role !== 'assistant' || typeof content !== 'string') return null
  if (typeof status !== 'string') return null
  return { conversationId, message: message as ChatMessage }
}

/** What the follower reads and changes in the chat store. */
export interface FollowTarget {
  /** The conversation's messages, or null when it is not loaded here. */
  messages(conversationId: string): readonly ChatMessage[] | null
  /** Whether this tab is streaming that answer itself (its own stream has every word). */
  isOwn(messageId: string): boolean
  /** Shows the answer's text so far. */
  setContent(conversationId: string, messageId: string, content: string): void
  /** Shows the answer as stored at its end. */
  replace(conversationId: string, message: ChatMessage): void
  /** Reads the conversation again and shows it (an answer this tab has not heard of yet). */
  reread(conversationId: string): Promise<void>
}

/** The most batches kept per answer while the text before them is awaited. */
const WAITING_LIMIT = 200

/**
 * Follows every answer of the user's loaded conversations that this tab is not streaming itself.
 * Batches that cannot be applied yet (their conversation is loading, or a batch before them is
 * missing) wait, and the conversation is read again; `settle` applies them once it is shown.
 */
export class AnswerFollower {
  readonly #target: FollowTarget
  /** Batches waiting, per answer. */
  readonly #waiting = new Map<string, AnswerDelta[]>()
  /** The longest text heard per answer, so a read older than the batches cannot shorten it. */
  readonly #heard = new Map<string, string>()
  /** Answers that ended, as stored: later batches change nothing, a stale read shows the end. */
  readonly #ended = new Map<string, ChatMessage>()
  /** Conversations being read again. */
  readonly #rereading = new Set<string>()

  constructor(target: FollowTarget) {
    this.#target = target
  }

  /** A batch of an answer's text. */
  delta(delta: AnswerDelta): void {
    if (this.#target.isOwn(delta.messageId) || this.#ended.has(delta.messageId)) return
    const waiting = this.#waiting.get(delta.messageId) ?? []
    waiting.push(delta)
    this.#waiting.set(delta.messageId, waiting.slice(-WAITING_LIMIT))
    this.#apply(delta.conversationId, delta.messageId)
  }

  /** An answer ended: the stored message replaces what was gathered. */
  done(done: AnswerDone): void {
    const { conversationId, message } = done
    this.#ended.set(message.id, message)
    this.#waiting.delete(message.id)
    this.#heard.delete(message.id)
    if (this.#target.isOwn(message.id)) return
    const messages = this.#target.messages(conversationId)
    if (messages === null) return
    if (messages.some((m) => m.id === message.id)) this.#target.replace(conversationId, message)
    else this.#reread(conversationId)
  }

  /** The conversation was shown as read: apply what waits, keep what was heard beyond it. */
  settle(conversationId: string): void {
    for (const message of this.#target.messages(conversationId) ?? []) {
      if (message.role !== 'assistant' || message.status !== 'streaming') continue
      const ended = this.#ended.get(message.id)
      if (ended !== undefined && !this.#target.isOwn(message.id))
        this.#target.replace(conversationId, ended)
      else this.#apply(conversationId, message.id, false)
    }
  }

  /** Reads a conversation again, once at a time, and applies what waits when it is shown. */
  #reread(conversationId: string): void {
    if (this.#rereading.has(conversationId)) return
    this.#rereading.add(conversationId)
    void this.#target.reread(conversationId).finally(() => {
      this.#rereading.delete(conversationId)
      this.settle(conversationId)
    })
  }

  #apply(conversationId: string, messageId: string, rereadOnGap = true): void {
    const messages = this.#target.messages(conversationId)
    if (messages === null) return
    const message = messages.find((m) => m.id === messageId)
    if (message === undefined) {
      // An answer begun after this tab read the conversation: read it again.
      if (rereadOnGap) this.#reread(conversationId)
      return
    }
    if (message.status !== 'streaming' || this.#target.isOwn(messageId)) return
    const heard = this.#heard.get(messageId) ?? ''
    const shown = message.content
    // Both are the start of the same answer: the longer one knows more.
    const base = heard.length > shown.length && heard.startsWith(shown) ? heard : shown
    const { text, waiting } = extendWith(base, this.#waiting.get(messageId) ?? [])
    this.#waiting.set(messageId, waiting)
    this.#heard.set(messageId, text)
    if (text !== shown) this.#target.setContent(conversationId, messageId, text)
    if (waiting.length > 0 && rereadOnGap) this.#reread(conversationId)
  }
}
