import { describe, expect, it } from 'vitest'
import { createSseParser, readSse, type SseEvent } from './sse.ts'

/** A body that delivers `chunks` one read at a time, as a network would. */
function bodyOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks)
        controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      controller.close()
    },
  })
}

async function collect(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  for await (const event of readSse(body)) events.push(event)
  return events
}

describe('readSse', () => {
  it('reads named events with JSON data, in order', async () => {
    const events = await collect(
      bodyOf(['event: delta\ndata: {"text":"Hel"}\n\n', 'event: delta\ndata: {"text":"lo"}\n\n']),
    )
    expect(events).toEqual([
      { event: 'delta', data: '{"text":"Hel"}', id: null },
      { event: 'delta', data: '{"text":"lo"}', id: null },
    ])
  })

  it('puts together an event split anywhere across chunks, even inside a character', async () => {
    const whole = new TextEncoder().encode('event: delta\ndata: {"text":"café ✓"}\n\n')
    // Every split point, including inside the multi-byte é and ✓.
    for (let cut = 1; cut < whole.length; cut += 1) {
      const events = await collect(bodyOf([whole.slice(0, cut), whole.slice(cut)]))
      expect(events, `cut at byte ${cut}`).toEqual([
        { event: 'delta', data: '{"text":"café ✓"}', id: null },
      ])
    }
  })

  it('accepts CRLF and CR line ends, a CRLF split across chunks included', async () => {
    const events = await collect(
      bodyOf(['event: a\r', '\ndata: 1\r\n\r', '\nevent: b\rdata: 2\r\r']),
    )
    expect(events.map((e) => [e.event, e.data])).toEqual([
      ['a', '1'],
      ['b', '2'],
    ])
  })

  it('joins data lines, keeps spaces beyond the first, and skips comments and unknown fields', async () => {
    const events = await collect(
      bodyOf([': heartbeat\n\ndata:  two spaces\ndata:second\nretry: 10\nfoo: bar\n\n']),
    )
    expect(events).toEqual([{ event: 'message', data: ' two spaces\nsecond', id: null }])
  })

  it('drops a leading byte-order mark and remembers the last id', async () => {
    const events = await collect(bodyOf(['\uFEFFid: 7\nevent: usage\ndata: {}\n\ndata: x\n\n']))
    expect(events).toEqual([
      { event: 'usage', data: '{}', id: '7' },
      { event: 'message', data: 'x', id: '7' },
    ])
  })

  it('does not dispatch a last event the stream cut before its blank line', async () => {
    const events = await collect(
      bodyOf(['event: delta\ndata: {"text":"a"}\n\nevent: delta\ndata: {"te']),
    )
    expect(events.map((e) => e.data)).toEqual(['{"text":"a"}'])
  })

  it('ignores an event with a name but no data', async () => {
    const parser = createSseParser()
    expect(parser.push('event: ping\n\n')).toEqual([])
    expect(parser.push('event: done\ndata: {}\n\n')).toEqual([
      { event: 'done', data: '{}', id: null },
    ])
  })

  it('cancels the body when the reader stops early, so the connection closes', async () => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: 1\n\n'))
      },
      cancel() {
        cancelled = true
      },
    })
    for await (const event of readSse(body)) {
      expect(event.data).toBe('1')
      break
    }
    expect(cancelled).toBe(true)
  })

  it('passes a failure of the body on to the reader', async () => {
    let reads = 0
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        reads += 1
        if (reads === 1) controller.enqueue(new TextEncoder().encode('data: 1\n\n'))
        else controller.error(new TypeError('terminated'))
      },
    })
    const seen: string[] = []
    await expect(async () => {
      for await (const event of readSse(body)) seen.push(event.data)
    }).rejects.toThrow('terminated')
    expect(seen).toEqual(['1'])
  })
})
