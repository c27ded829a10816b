import { describe, expect, it, vi } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { createModelLanes, withModelLanes } from './model-lanes.ts'
import type { Lane, LaneGrant, ModelLanes } from './model-lanes.ts'
import type { AnswerChunk, ChatModel } from './model.ts'

const signal = () => new AbortController().signal

/** Starts an acquire and reports whether (and with what) it has been granted so far. */
function ask(lanes: ModelLanes, lane: Lane, abort = new AbortController()) {
  const state: { grant: LaneGrant | null; error: unknown } = { grant: null, error: null }
  const done = lanes.acquire(lane, abort.signal).then(
    (grant) => {
      state.grant = grant
    },
    (error: unknown) => {
      state.error = error
    },
  )
  return { state, done, abort }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('model lanes', () => {
  it('lets other plans take only the shared slots, and a priority send any free one at once', async () => {
    const lanes = createModelLanes({ capacity: 4, reserved: 1 }, createManualClock())
    const standard = [1, 2, 3, 4, 5].map(() => ask(lanes, 'standard'))
    await settle()
    expect(standard.map((s) => s.state.grant !== null)).toEqual([true, true, true, false, false])
    const pro = ask(lanes, 'priority')
    await settle()
    expect(pro.state.grant?.waitedMs).toBe(0)
    expect(lanes.counts()).toEqual({
      open: { priority: 1, standard: 3 },
      waiting: { priority: 0, standard: 2 },
    })
  })

  it('gives a freed slot to a waiting priority send before earlier sends of other plans, then in order', async () => {
    const clock = createManualClock()
    const lanes = createModelLanes({ capacity: 2, reserved: 1 }, clock)
    const first = ask(lanes, 'standard')
    const pro = ask(lanes, 'priority')
    await settle()
    const [queued1, queued2] = [ask(lanes, 'standard'), ask(lanes, 'standard')]
    clock.advance(700)
    const laterPro = ask(lanes, 'priority')
    await settle()
    expect([queued1.state.grant, queued2.state.grant, laterPro.state.grant]).toEqual([
      null,
      null,
      null,
    ])
    clock.advance(300)
    pro.state.grant?.release()
    await settle()
    // The reserved slot went back to priority, waited for 300 ms of the clock.
    expect(laterPro.state.grant?.waitedMs).toBe(300)
    expect(queued1.state.grant).toBeNull()
    clock.advance(1000)
    first.state.grant?.release()
    await settle()
    expect(queued1.state.grant?.waitedMs).toBe(2000)
    expect(queued2.state.grant).toBeNull()
    queued1.state.grant?.release()
    // Released twice: counted once.
    queued1.state.grant?.release()
    await settle()
    expect(queued2.state.grant?.waitedMs).toBe(2000)
    expect(lanes.counts().open).toEqual({ priority: 1, standard: 1 })
  })

  it('takes a stopped send out of the queue: it is never granted and holds nothing', async () => {
    const lanes = createModelLanes({ capacity: 1, reserved: 0 }, createManualClock())
    const running = ask(lanes, 'standard')
    await settle()
    const stopped = ask(lanes, 'standard')
    const next = ask(lanes, 'standard')
    await settle()
    stopped.abort.abort(new DOMException('Stopped', 'AbortError'))
    await stopped.done
    expect((stopped.state.error as DOMException).name).toBe('AbortError')
    expect(lanes.counts().waiting.standard).toBe(1)
    running.state.grant?.release()
    await settle()
    expect(stopped.state.grant).toBeNull()
    expect(next.state.grant).not.toBeNull()
    // Already aborted: refused without queueing.
    const late = new AbortController()
    late.abort()
    await expect(lanes.acquire('priority', late.signal)).rejects.toBeDefined()
    expect(lanes.counts()).toEqual({
      open: { priority: 0, standard: 1 },
      waiting: { priority: 0, standard: 0 },
    })
  })

  it('does not cap anything with a capacity of 0', async () => {
    const lanes = createModelLanes({ capacity: 0, reserved: 0 }, createManualClock())
    const grants = await Promise.all(
      Array.from({ length: 500 }, () => lanes.acquire('standard', signal())),
    )
    expect(grants.every((grant) => grant.waitedMs === 0)).toBe(true)
    expect(lanes.counts().open.standard).toBe(500)
  })
})

/** A model whose answers stream the chunks given, and whose requests are counted. */
function fakeModel(behaviour: 'stream' | 'refuse' = 'stream') {
  const calls: string[] = []
  const model: ChatModel = {
    moderate: async () => false,
    async answer(request) {
      calls.push(request.model)
      if (behaviour === 'refuse') throw new Error('429')
      return (async function* chunks(): AsyncGenerator<AnswerChunk> {
        yield { text: 'Hi', finishReason: null, usage: null }
        yield { text: '', finishReason: 'stop', usage: null }
      })()
    },
  }
  return { model, calls }
}

const request = (priority: boolean) => ({
  model: 'gpt-4o' as const,
  messages: [{ role: 'user' as const, content: 'Hello' }],
  maxAnswerTokens: 16,
  priority,
})

async function drain(stream: AsyncIterable<AnswerChunk>) {
  let text = ''
  for await (const chunk of stream) text += chunk.text
  return text
}

describe('the model behind the lanes', () => {
  it('holds a slot while the answer streams and gives it back at its end', async () => {
    const lanes = createModelLanes({ capacity: 2, reserved: 1 }, createManualClock())
    const { model } = fakeModel()
    const laned = withModelLanes(model, lanes)
    const stream = await laned.answer(request(false), signal())
    expect(lanes.counts().open.standard).toBe(1)
    expect(await drain(stream)).toBe('Hi')
    expect(lanes.counts().open.standard).toBe(0)
  })

  it('gives the slot back when the model refuses, and when the answer is stopped', async () => {
    const lanes = createModelLanes({ capacity: 1, reserved: 0 }, createManualClock())
    await expect(
      withModelLanes(fakeModel('refuse').model, lanes).answer(request(false), signal()),
    ).rejects.toThrow('429')
    expect(lanes.counts().open.standard).toBe(0)
    const stop = new AbortController()
    await withModelLanes(fakeModel().model, lanes).answer(request(true), stop.signal)
    expect(lanes.counts().open.priority).toBe(1)
    stop.abort()
    expect(lanes.counts().open.priority).toBe(0)
  })

  it('never asks the model for a send stopped while it waited, and reports the waits it measured', async () => {
    const clock = createManualClock()
    const lanes = createModelLanes({ capacity: 1, reserved: 0 }, clock)
    const { model, calls } = fakeModel()
    const waited = vi.fn()
    const laned = withModelLanes(model, lanes, waited)
    const first = await laned.answer(request(false), signal())
    const stop = new AbortController()
    const stopped = laned.answer(request(false), stop.signal)
    const next = laned.answer(request(false), signal())
    stop.abort(new DOMException('Stopped', 'AbortError'))
    await expect(stopped).rejects.toMatchObject({ name: 'AbortError' })
    clock.advance(1500)
    await drain(first)
    await drain(await next)
    expect(calls).toHaveLength(2)
    expect(waited).toHaveBeenCalledWith('standard', 1500)
    expect(lanes.counts().open).toEqual({ priority: 0, standard: 0 })
  })
})
