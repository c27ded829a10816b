/**
 * "Priority answers" (docs/decisions/028): this process opens at most `capacity` requests to the
 * model at once, and keeps `reserved` of them for the plans that sell priority. A send of another
 * plan waits (first come, first served) while the shared slots are taken; a priority send takes
 * any free slot and is served first when one frees, so a burst of Free sends never stands between
 * a paying user and the model. The wait is part of the answer's first-token timeout (the timer
 * runs from before the request), and Stop or that timeout take a waiting send out of the queue:
 * it never reaches the model and is charged nothing. Per process: with N replicas the model sees
 * at most N × capacity.
 */
import type { Clock } from '../../platform/clock.ts'
import type { AnswerChunk, ChatModel } from './model.ts'

export type Lane = 'priority' | 'standard'

export interface LaneSettings {
  /** The most model requests open at once in this process; 0: no cap (and no lanes). */
  capacity: number
  /** Of those, how many only priority sends may take (less than `capacity`). */
  reserved: number
}

/** A slot held for one model request: give it back once, when the request has ended. */
export interface LaneGrant {
  /** How long the send waited for its slot (ms, by the lanes' clock). */
  waitedMs: number
  release(): void
}

export interface LaneCounts {
  open: Record<Lane, number>
  waiting: Record<Lane, number>
}

export interface ModelLanes {
  /** Waits for a slot in `lane`; rejects with the signal's reason if it is aborted first. */
  acquire(lane: Lane, signal: AbortSignal): Promise<LaneGrant>
  counts(): LaneCounts
}

interface Waiter {
  since: number
  grant(): void
}

export function createModelLanes(settings: LaneSettings, clock: Clock): ModelLanes {
  const capped = settings.capacity > 0
  const shared = settings.capacity - settings.reserved
  const open: Record<Lane, number> = { priority: 0, standard: 0 }
  const queues: Record<Lane, Waiter[]> = { priority: [], standard: [] }

  const fits = (lane: Lane): boolean =>
    !capped ||
    (open.priority + open.standard < settings.capacity &&
      (lane === 'priority' || open.standard < shared))

  /** Gives free slots to the waiting: priority first, then the others in their order. */
  const dispatch = () => {
    for (const lane of ['priority', 'standard'] as const) {
      const queue = queues[lane]
      while (queue.length > 0 && fits(lane)) queue.shift()?.grant()
    }
  }

  const take = (lane: Lane, since: number): LaneGrant => {
    open[lane] += 1
    let held = true
    return {
      waitedMs: Math.max(0, clock.now() - since),
      release() {
        if (!held) return
        held = false
        open[lane] -= 1
        dispatch()
      },
    }
  }

  return {
    acquire(lane, signal) {
      const since = clock.now()
      if (signal.aborted) return Promise.reject(signal.reason)
      if (queues[lane].length === 0 && fits(lane)) return Promise.resolve(take(lane, since))
      return new Promise<LaneGrant>((resolve, reject) => {
        const onAbort = () => {
          const queue = queues[lane]
          const at = queue.indexOf(waiter)
          if (at >= 0) queue.splice(at, 1)
          reject(signal.reason)
        }
        const waiter: Waiter = {
          since,
          grant() {
            signal.removeEventListener('abort', onAbort)
            resolve(take(lane, since))
          },
        }
        queues[lane].push(waiter)
        signal.addEventListener('abort', onAbort, { once: true })
      })
    },
    counts: () => ({
      open: { ...open },
      waiting: { priority: queues.priority.length, standard: queues.standard.length },
    }),
  }
}

/**
 * The model behind the lanes: an answer's request waits for its slot, and gives it back when its
 * stream ends, fails or is aborted (Stop, a timeout). Moderation is not queued: it is short, and
 * it runs before anything is held.
 */
export function withModelLanes(
  model: ChatModel,
  lanes: ModelLanes,
  onWaited?: (lane: Lane, waitedMs: number) => void,
): ChatModel {
  return {
    moderate: (text, signal) => model.moderate(text, signal),
    async answer(request, signal) {
      const lane: Lane = request.priority === true ? 'priority' : 'standard'
      const grant = await lanes.acquire(lane, signal)
      if (grant.waitedMs > 0) onWaited?.(lane, grant.waitedMs)
      signal.addEventListener('abort', grant.release, { once: true })
      let stream: AsyncIterable<AnswerChunk>
      try {
        stream = await model.answer(request, signal)
      } catch (error) {
        grant.release()
        throw error
      }
      return (async function* released(): AsyncGenerator<AnswerChunk> {
        try {
          yield* stream
        } finally {
          grant.release()
        }
      })()
    },
  }
}
