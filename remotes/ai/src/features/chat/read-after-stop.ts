import type { AssistantApi } from '../../lib/assistant-api.ts'

export type ListedMessages = Awaited<ReturnType<AssistantApi['listMessages']>>

/** Reads of a conversation after an early Stop, before the page shows it as it is. */
const STOP_READ_ATTEMPTS = 12

export interface ReadAfterStopOptions {
  /** Reads the conversation. */
  read: () => Promise<ListedMessages>
  /** The stored messages the page had before the send: the send's pair comes after them. */
  known: number
  /** True once reading is pointless: the page detached, or a new send started in the conversation. */
  abandoned: () => boolean
  /** Shows the conversation as read. */
  show: (body: ListedMessages) => void
  /** A read failed: the page's own loading and its error say what went wrong. */
  reopen: () => Promise<void>
  /** Between reads (ms). */
  pauseMs: number
}

/**
 * After a Stop that came before the send's `message` event (the BFF sends it with the first
 * token): reads the conversation until the BFF has stored how the stopped answer ended, which it
 * does a moment after the browser leaves. Until then the list lacks the send, or its answer reads
 * `streaming`, which the page would show as being written elsewhere; the thread is replaced only
 * once the send's pair is there and ended (or after the last try), so the person's message does
 * not flicker meanwhile.
 */
export async function readAfterStop(options: ReadAfterStopOptions): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    if (options.abandoned()) return
    let body: ListedMessages
    try {
      body = await options.read()
    } catch {
      // The page's own loading and its error say what went wrong, and offer to try again.
      return options.reopen()
    }
    const last = body.messages.at(-1)
    const settled =
      body.messages.length >= options.known + 2 &&
      body.messages.at(-2)?.role === 'user' &&
      last?.role === 'assistant' &&
      last.status !== 'streaming'
    if (settled || attempt >= STOP_READ_ATTEMPTS) {
      options.show(body)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs))
  }
}
