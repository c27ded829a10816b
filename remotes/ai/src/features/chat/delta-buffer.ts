/**
 * Gathers an answer's deltas per conversation and hands them on every few milliseconds: one
 * render per few tokens instead of one per token.
 */
export class DeltaBuffer {
  /** Deltas not rendered yet, per conversation: the answer they belong to and their text. */
  readonly #pending = new Map<string, { messageId: string; text: string }>()
  #timer: ReturnType<typeof setTimeout> | null = null
  readonly #everyMs: number
  readonly #render: (id: string, messageId: string, text: string) => void

  constructor(everyMs: number, render: (id: string, messageId: string, text: string) => void) {
    this.#everyMs = everyMs
    this.#render = render
  }

  /** Adds a delta of answer `messageId` in conversation `id`, rendered with the next flush. */
  add(id: string, messageId: string, text: string): void {
    const pending = this.#pending.get(id)
    this.#pending.set(id, { messageId, text: (pending?.text ?? '') + text })
    if (this.#timer !== null) return
    this.#timer = setTimeout(() => {
      this.#timer = null
      this.flush()
    }, this.#everyMs)
  }

  /** Forgets a conversation's gathered deltas (its whole answer arrived). */
  drop(id: string): void {
    this.#pending.delete(id)
  }

  /** Hands on every gathered delta now. */
  flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
    const pending = [...this.#pending]
    this.#pending.clear()
    for (const [id, { messageId, text }] of pending) this.#render(id, messageId, text)
  }
}
