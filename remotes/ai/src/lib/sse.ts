/** One dispatched server-sent event. `event` is `message` when the server named none. */
export interface SseEvent {
  event: string
  data: string
  id: string | null
}

/**
 * Reads a `text/event-stream` body into events, following the HTML standard's parsing rules:
 * lines end in CRLF, LF or CR; `data:` lines join with a newline; one space after the colon is
 * dropped; comments (`:`) and unknown fields are ignored; an event is dispatched on a blank line,
 * so a last event without one (the stream was cut) is not. `EventSource` cannot send a POST, so
 * the answer of a send is read from `fetch`'s body with this.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  // `stream: true` holds back a character split across two chunks until its last byte arrives.
  const decoder = new TextDecoder()
  const parser = createSseParser()
  let settled = false
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>
      try {
        chunk = await reader.read()
      } catch (error) {
        settled = true
        throw error
      }
      if (chunk.done) {
        settled = true
        return
      }
      yield* parser.push(decoder.decode(chunk.value, { stream: true }))
    }
  } finally {
    // A reader that stops early (it got `done`, or gave up) cancels the body, so the connection
    // is closed rather than left to drain.
    if (!settled) await reader.cancel()
  }
}

/** The incremental parser behind `readSse`: feed it text as it arrives, get whole events back. */
export function createSseParser() {
  let buffer = ''
  let first = true
  // A CR at the end of a chunk may be half of a CRLF split across chunks.
  let pendingCr = false
  let event = ''
  let data: string[] = []
  let id: string | null = null
  let lastId: string | null = null

  function line(text: string, out: SseEvent[]) {
    if (text === '') {
      if (data.length > 0)
        out.push({ event: event || 'message', data: data.join('\n'), id: lastId })
      event = ''
      data = []
      return
    }
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'event':
        event = value
        break
      case 'data':
        data.push(value)
        break
      case 'id':
        // An id holding NUL is ignored, as the standard says.
        if (!value.includes('\0')) id = value
        lastId = id
        break
    }
  }

  return {
    push(chunk: string): SseEvent[] {
      let text = chunk
      if (first && text.length > 0) {
        first = false
        if (text.startsWith('\uFEFF')) text = text.slice(1)
      }
      if (pendingCr && text.startsWith('\n')) text = text.slice(1)
      pendingCr = false
      buffer += text
      const out: SseEvent[] = []
      let start = 0
      for (let index = 0; index < buffer.length; index += 1) {
        const char = buffer[index]
        if (char !== '\n' && char !== '\r') continue
        line(buffer.slice(start, index), out)
        if (char === '\r') {
          if (index + 1 === buffer.length) pendingCr = true
          else if (buffer[index + 1] === '\n') index += 1
        }
        start = index + 1
      }
      buffer = buffer.slice(start)
      return out
    },
  }
}
