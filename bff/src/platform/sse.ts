import type { Context } from 'hono'
import { nextTurn } from './next-turn.ts'

/** One server-sent event; `data` may span lines (each becomes a `data:` line). */
export interface ServerSentEvent {
  event?: string
  data: string
  id?: string
  /** How soon the browser reconnects after the stream drops (ms). */
  retry?: number
}

/** The open stream a handler writes its events into. */
export interface EventStream {
  /** Writes an event; resolves once the stream has room for more (the connection's pace). */
  send(event: ServerSentEvent): Promise<void>
  /**
   * Writes events already in the wire format (`encodeEvent`) at once, without waiting for room:
   * for one event fanned out to many streams, formatted once. Answers how many chunks are now
   * queued, not yet taken by the connection (0 once it is gone), so the caller can tell a reader
   * that fell behind.
   */
  write(chunk: Uint8Array): number
  /** The browser went away (the connection closed, or the request was aborted). */
  readonly aborted: boolean
  /** Called once when the browser goes away; at once if it already has. */
  onAbort(listener: () => void): void
}

const encoder = new TextEncoder()

/** What a request may carry (http/middleware/drain-hint.ts): whether the process is draining. */
interface DrainVariables {
  draining?: () => boolean
}

/**
 * The reconnect delay a stream ended by a draining process suggests: spread over 250–1000 ms so
 * the browsers of a replica that goes away do not all arrive at the others in the same instant.
 */
export function drainRetryMs(random: () => number = Math.random): number {
  return 250 + Math.floor(random() * 750)
}

/** An event in the wire format; throws on a line break in `event` or `id`. */
export function formatEvent(message: ServerSentEvent): string {
  let text = ''
  if (message.event !== undefined) text += `event: ${field('event', message.event)}\n`
  if (message.id !== undefined) text += `id: ${field('id', message.id)}\n`
  if (message.retry !== undefined) text += `retry: ${Math.max(0, Math.trunc(message.retry))}\n`
  // A line break in the data starts another data line; the browser joins them back with '\n'.
  text += `data: ${message.data.replace(/\r\n|\r|\n/g, '\ndata: ')}\n\n`
  return text
}

/** An event in the wire format, encoded: what `EventStream.write` takes. */
export function encodeEvent(message: ServerSentEvent): Uint8Array {
  return encoder.encode(formatEvent(message))
}

function field(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`an SSE ${name} must not contain a line break`)
  return value
}

/**
 * A `text/event-stream` response whose events `run` writes; the stream ends when `run` settles
 * (a throw is `onError`'s to report: the stream only ends).
 *
 * One ReadableStream the events are enqueued into, rather than hono/streaming's TransformStream
 * and the ReadableStream around it: on the assistant's path to the first token every event went
 * through three web streams and their promises (docs/decisions/012). A write waits while a chunk
 * is still queued, so a slow connection slows the writer (and the assistant gathers the text that
 * arrives meanwhile into fewer, larger events).
 *
 * `run` starts at once; the response is returned on the next turn of the event loop. The server
 * writes a streamed response's head as soon as it has the response (@hono/node-server flushes it
 * when no event is queued yet), and that write would otherwise go out before whatever `run` set
 * off in its first turn: the assistant's request to the model (docs/decisions/013).
 */
export async function eventStream(
  c: Context,
  run: (stream: EventStream) => Promise<void>,
  onError: (error: unknown) => void,
): Promise<Response> {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let aborted = false
  let ended = false
  // Writers waiting for the queued chunk to be taken (a heartbeat can wait beside an event).
  const waiting: (() => void)[] = []
  const listeners: (() => void)[] = []
  const wakeWriters = () => {
    for (const resolve of waiting.splice(0)) resolve()
  }
  const signal = c.req.raw.signal
  const draining = (c.var as DrainVariables).draining

  const abort = () => {
    if (aborted) return
    aborted = true
    wakeWriters()
    for (const listener of listeners.splice(0)) listener()
  }
  signal.addEventListener('abort', abort, { once: true })

  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController
      },
      pull: wakeWriters,
      cancel: abort,
    },
    { highWaterMark: 1 },
  )
  const stream: EventStream = {
    send(message) {
      if (aborted || ended) return Promise.resolve()
      controller.enqueue(encoder.encode(formatEvent(message)))
      if ((controller.desiredSize ?? 0) > 0) return Promise.resolve()
      return new Promise<void>((resolve) => {
        waiting.push(resolve)
      })
    },
    write(chunk) {
      if (aborted || ended) return 0
      controller.enqueue(chunk)
      // The queue holds at most `highWaterMark` (1) chunk before it counts as behind.
      return 1 - (controller.desiredSize ?? 1)
    },
    get aborted() {
      return aborted || signal.aborted
    },
    onAbort(listener) {
      if (aborted || signal.aborted) listener()
      else listeners.push(listener)
    },
  }

  void run(stream)
    .catch(onError)
    .finally(() => {
      ended = true
      signal.removeEventListener('abort', abort)
      wakeWriters()
      try {
        // The browser reconnects after `retry`; a draining process asks it to come back soon.
        if (!aborted && draining?.() === true)
          controller.enqueue(encoder.encode(`retry: ${drainRetryMs()}\n\n`))
        controller.close()
      } catch {
        // Already cancelled by the reader: nothing to end.
      }
    })

  await nextTurn()
  return c.body(body, 200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
  })
}
