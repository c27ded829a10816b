import { Hono } from 'hono'
import { describe, expect, it } from 'vitest'
import { encodeEvent, eventStream, formatEvent } from './sse.ts'
import type { EventStream } from './sse.ts'

const turn = () => new Promise((resolve) => setImmediate(resolve))

/** An app whose one route streams with `run`; `errors` collects what onError got. */
function streamingApp(run: (stream: EventStream) => Promise<void>) {
  const errors: unknown[] = []
  const app = new Hono().get('/events', (c) => eventStream(c, run, (error) => errors.push(error)))
  return { app, errors }
}

async function readAll(response: Response): Promise<string> {
  return new TextDecoder().decode(await response.arrayBuffer())
}

describe('formatEvent', () => {
  it('writes the event, id and retry fields, and a data line per line of data', () => {
    expect(formatEvent({ event: 'delta', data: '{"text":"hi"}' })).toBe(
      'event: delta\ndata: {"text":"hi"}\n\n',
    )
    expect(formatEvent({ event: 'tessera', id: '7', retry: 2000, data: 'a\nb\r\nc' })).toBe(
      'event: tessera\nid: 7\nretry: 2000\ndata: a\ndata: b\ndata: c\n\n',
    )
    expect(formatEvent({ data: '' })).toBe('data: \n\n')
  })

  it('refuses a line break in the event name or id, which would forge another field', () => {
    expect(() => formatEvent({ event: 'delta\ndata: x', data: '' })).toThrow(/event/)
    expect(() => formatEvent({ id: '1\r', data: '' })).toThrow(/id/)
  })
})

describe('eventStream', () => {
  it('streams the events in order as text/event-stream, and ends when the handler does', async () => {
    const { app, errors } = streamingApp(async (stream) => {
      await stream.send({ event: 'one', data: '1' })
      await stream.send({ event: 'two', data: '2' })
    })
    const response = await app.request('/events')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('cache-control')).toBe('no-cache')
    expect(await readAll(response)).toBe('event: one\ndata: 1\n\nevent: two\ndata: 2\n\n')
    expect(errors).toEqual([])
  })

  it('returns the response after the handler’s first turn, so what that turn set off goes first', async () => {
    const steps: string[] = []
    const app = new Hono().get('/events', async (c) => {
      const response = await eventStream(
        c,
        async (stream) => {
          // As a client request goes: some promise callbacks, then its write at the turn's end.
          for (let hop = 0; hop < 20; hop += 1) await Promise.resolve()
          process.nextTick(() => steps.push('request written'))
          await new Promise<void>((resolve) => stream.onAbort(resolve))
        },
        () => undefined,
      )
      steps.push('response returned')
      return response
    })
    const response = await app.request('/events')
    expect(steps).toEqual(['request written', 'response returned'])
    await response.body?.cancel()
  })

  it('holds a writer while the reader is behind, and lets it on as the reader takes events', async () => {
    const written: number[] = []
    const { app } = streamingApp(async (stream) => {
      for (let index = 1; index <= 3; index += 1) {
        await stream.send({ data: String(index) })
        written.push(index)
      }
    })
    const reader = (await app.request('/events')).body!.getReader()
    await turn()
    // The first event waits in the stream; its writer waits for it to be taken.
    expect(written).toEqual([])
    await reader.read()
    await turn()
    expect(written).toEqual([1])
    await reader.read()
    await reader.read()
    await turn()
    expect(written).toEqual([1, 2, 3])
    expect((await reader.read()).done).toBe(true)
  })

  it('writes encoded events at once, without waiting, and tells how many the reader has not taken', async () => {
    const backlogs: number[] = []
    let written!: () => void
    const done = new Promise<void>((resolve) => (written = resolve))
    const { app } = streamingApp(async (stream) => {
      for (let index = 1; index <= 3; index += 1)
        backlogs.push(stream.write(encodeEvent({ id: String(index), data: String(index) })))
      written()
      await Promise.resolve()
    })
    const response = await app.request('/events')
    await done
    expect(backlogs).toEqual([1, 2, 3])
    expect(await readAll(response)).toBe('id: 1\ndata: 1\n\nid: 2\ndata: 2\n\nid: 3\ndata: 3\n\n')
  })

  it('tells the handler when the reader cancels, and frees a writer that was waiting', async () => {
    let stream: EventStream | null = null
    let heard = 0
    let sendSettled = false
    const { app } = streamingApp(async (opened) => {
      stream = opened
      opened.onAbort(() => (heard += 1))
      await opened.send({ data: 'first' })
      await opened.send({ data: 'second' }).then(() => (sendSettled = true))
    })
    const reader = (await app.request('/events')).body!.getReader()
    await reader.read()
    await turn()
    expect(sendSettled).toBe(false)
    await reader.cancel()
    await turn()
    expect(heard).toBe(1)
    expect(sendSettled).toBe(true)
    expect(stream!.aborted).toBe(true)
    // A listener added after the fact hears at once.
    stream!.onAbort(() => (heard += 1))
    expect(heard).toBe(2)
    // Sends after that go nowhere, and do not throw.
    await stream!.send({ data: 'late' })
  })

  it('tells the handler when the request is aborted', async () => {
    const stop = new AbortController()
    let heard = false
    const { app } = streamingApp(async (stream) => {
      stream.onAbort(() => (heard = true))
      await new Promise<void>((resolve) => stream.onAbort(resolve))
    })
    const response = await app.request('/events', { signal: stop.signal })
    expect(heard).toBe(false)
    stop.abort()
    await turn()
    expect(heard).toBe(true)
    await response.body?.cancel()
  })

  it('reports a handler that throws, and ends the stream with what was sent', async () => {
    const failure = new Error('handler bug')
    const { app, errors } = streamingApp(async (stream) => {
      await stream.send({ data: 'before' })
      throw failure
    })
    expect(await readAll(await app.request('/events'))).toBe('data: before\n\n')
    expect(errors).toEqual([failure])
  })
})
