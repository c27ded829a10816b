import { describe, expect, it, vi } from 'vitest'
import { createAssistantApi } from '../../lib/assistant-api.ts'
import { conversation, fakeAssistantBff, message } from '../../testing/fake-assistant-bff.ts'
import { assistantPlatform } from '../../testing/render-assistant.tsx'
import { ChatStore } from './chat-store.ts'

function storeFor(bff = fakeAssistantBff(), flushEveryMs = 0, stopReadPauseMs = 25) {
  const platform = assistantPlatform(bff)
  const opened: (string | null)[] = []
  const settled = vi.fn()
  const store = new ChatStore({
    api: createAssistantApi(platform),
    openConversation: (id) => opened.push(id),
    onSendSettled: settled,
    flushEveryMs,
    stopReadPauseMs,
  })
  const detach = store.attach()
  return { bff, store, opened, settled, detach }
}

const until = <T>(check: () => T) => vi.waitFor(check, { timeout: 5_000, interval: 5 })

describe('ChatStore', () => {
  it('keeps the streams of two conversations apart', async () => {
    const bff = fakeAssistantBff({
      conversations: [conversation('a', 'A'), conversation('b', 'B')],
    })
    const { store } = storeFor(bff)
    await Promise.all([store.open('a'), store.open('b')])
    const streams = [bff.nextStream()]
    const sendA = store.send('a', 'to a')
    const streamA = await streams[0]!
    const nextB = bff.nextStream()
    const sendB = store.send('b', 'to b')
    const streamB = await nextB
    streamA.start()
    streamB.start()
    streamA.delta('one ')
    streamB.delta('uno ')
    streamA.delta('two')
    streamB.delta('dos')
    streamA.done()
    streamB.done()
    await Promise.all([sendA, sendB])
    const answer = (id: string) => store.getState().threads[id]?.messages.at(-1)?.content
    expect(answer('a')).toBe('one two')
    expect(answer('b')).toBe('uno dos')
  })

  it('renders a burst of deltas in a few batches, not one render per token', async () => {
    const bff = fakeAssistantBff({ conversations: [conversation('a', 'A')] })
    const { store } = storeFor(bff, 30)
    await store.open('a')
    const next = bff.nextStream()
    const sending = store.send('a', 'hello')
    const stream = await next
    stream.start()
    const renders = vi.fn()
    const unsubscribe = store.subscribe(renders)
    for (let i = 0; i < 50; i += 1) stream.delta(`${i} `)
    await until(() => expect(store.getState().threads.a?.messages.at(-1)?.content).toContain('49'))
    expect(renders.mock.calls.length).toBeLessThan(10)
    stream.done()
    await sending
    unsubscribe()
  })

  it('reads the conversation again when Stop came before the server said what it stored', async () => {
    const bff = fakeAssistantBff({
      conversations: [conversation('a', 'A')],
      messages: { a: [message('user', 'earlier'), message('assistant', 'reply')] },
    })
    const { store, settled } = storeFor(bff)
    await store.open('a')
    const next = bff.nextStream()
    const sending = store.send('a', 'never answered')
    const stream = await next
    store.stop('a')
    await sending
    expect(stream.aborted()).toBe(true)
    expect(settled).toHaveBeenCalledOnce()
    // The BFF stores the stopped send a moment after the browser left.
    await until(() =>
      expect(bff.callsTo('GET', '/api/assistant/conversations/a/messages')).toHaveLength(3),
    )
    expect(store.getState().threads.a?.messages.map((m) => m.content)).toEqual([
      'earlier',
      'reply',
      'never answered',
    ])
    bff.messages.a = [
      ...bff.messages.a!,
      message('user', 'never answered'),
      message('assistant', '', { status: 'partial' }),
    ]
    await until(() =>
      expect(store.getState().threads.a?.messages.map((m) => [m.role, m.status])).toEqual([
        ['user', 'complete'],
        ['assistant', 'complete'],
        ['user', 'complete'],
        ['assistant', 'partial'],
      ]),
    )
  })

  it('after an early Stop, reads until the BFF has stored how the answer ended', async () => {
    const bff = fakeAssistantBff({ conversations: [conversation('a', 'A')] })
    const { store } = storeFor(bff)
    await store.open('a')
    const next = bff.nextStream()
    const sending = store.send('a', 'stopped at once')
    await next
    // The BFF had stored the send, and not yet how it ended, when the page read it.
    const answer = message('assistant', '', { status: 'streaming' })
    expect(bff.messages.a ?? []).toEqual([])
    bff.messages.a = [message('user', 'stopped at once'), answer]
    store.stop('a')
    await sending
    const reads = () => bff.callsTo('GET', '/api/assistant/conversations/a/messages').length
    await until(() => expect(reads()).toBeGreaterThanOrEqual(3))
    // The person's message stays on screen meanwhile, and nothing says "being written".
    expect(store.getState().threads.a?.messages.map((m) => [m.content, m.status])).toEqual([
      ['stopped at once', 'complete'],
    ])
    bff.messages.a = [bff.messages.a[0]!, { ...answer, status: 'partial' }]
    await until(() =>
      expect(store.getState().threads.a?.messages.at(-1)).toMatchObject({
        id: answer.id,
        status: 'partial',
      }),
    )
    const settledAt = reads()
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(reads()).toBe(settledAt)
  })

  it('ends every stream when the page detaches, and works again once attached', async () => {
    const bff = fakeAssistantBff({ conversations: [conversation('a', 'A')] })
    const { store, detach } = storeFor(bff)
    await store.open('a')
    const next = bff.nextStream()
    const sending = store.send('a', 'long answer please')
    const stream = await next
    stream.start()
    detach()
    await sending
    expect(stream.aborted()).toBe(true)

    store.attach()
    const again = bff.nextStream()
    const second = store.send('a', 'and now?')
    const secondStream = await again
    secondStream.start()
    secondStream.delta('Here.')
    secondStream.done()
    await second
    expect(store.getState().threads.a?.messages.at(-1)?.content).toBe('Here.')
  })

  it('keeps a first message whose conversation could not be created, to retry or edit', async () => {
    const bff = fakeAssistantBff()
    const platform = assistantPlatform(bff)
    const api = createAssistantApi(platform)
    api.createConversation = () =>
      Promise.reject(
        Object.assign(new Error('Too many requests.'), {
          name: 'ApiError',
          code: 'rate_limited',
          status: 429,
          details: { retryAfterSeconds: 5 },
        }),
      )
    const store = new ChatStore({ api, openConversation: () => undefined })
    store.attach()
    const failure = await store.send(null, 'hello')
    expect(failure).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 5 })
    expect(store.getState().list.conversations).toEqual([])
    expect(store.getState().starting).toMatchObject({ content: 'hello', failure })
    expect(store.takeBackStart()).toBe('hello')
    expect(store.getState().starting).toBeNull()
  })

  it('shows a first message at once while its conversation is created, and Stop then sends nothing', async () => {
    const bff = fakeAssistantBff()
    const { store, opened } = storeFor(bff)
    const outcome = store.send(null, 'hello there')
    expect(store.getState().starting).toEqual({ content: 'hello there', failure: null })
    store.stop(null)
    expect(await outcome).toBe('cancelled')
    expect(store.getState().starting).toBeNull()
    // The conversation made for it is deleted again, and never opened.
    expect(opened).toEqual([])
    expect(bff.calls.filter((call) => call.method === 'DELETE')).toHaveLength(1)
    expect(store.getState().list.conversations).toEqual([])
    expect(bff.calls.filter((call) => call.path.endsWith('/messages'))).toEqual([])
  })
})
