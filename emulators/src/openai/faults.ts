/**
 * Fault injection: a fault is armed for the next `count` requests that match it (by endpoint,
 * model, and a substring of the last user message), so parallel tests can aim at their own
 * requests without disturbing each other.
 */
import { z } from 'zod/mini'

export const FAULT_ENDPOINTS = ['chat.completions', 'moderations'] as const
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number]

const matchFields = {
  count: z._default(z.int().check(z.gte(1), z.lte(10_000)), 1),
  endpoint: z._default(z.enum(FAULT_ENDPOINTS), 'chat.completions'),
  model: z.optional(z.string().check(z.minLength(1))),
  /** Case-sensitive substring of the last user message (or of any moderation input). */
  match: z.optional(z.string().check(z.minLength(1))),
}

export const faultInputSchema = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('rate_limit'),
      ...matchFields,
      retryAfterMs: z._default(z.int().check(z.gte(0), z.lte(600_000)), 1000),
    }),
    z.strictObject({
      type: z.literal('server_error'),
      ...matchFields,
      status: z._default(z.int().check(z.gte(500), z.lte(599)), 500),
    }),
    // Without `ms` the stall lasts until the client gives up.
    z.strictObject({
      type: z.literal('stall'),
      ...matchFields,
      ms: z.optional(z.int().check(z.gte(0), z.lte(3_600_000))),
    }),
    z.strictObject({
      type: z.literal('cut'),
      ...matchFields,
      afterTokens: z._default(z.int().check(z.gte(0)), 3),
    }),
    z.strictObject({
      type: z.literal('slow'),
      ...matchFields,
      tokensPerSecond: z.number().check(z.positive(), z.lte(1_000_000)),
    }),
  ])
  .check(
    z.refine(
      (fault) =>
        fault.endpoint === 'chat.completions' ||
        fault.type === 'rate_limit' ||
        fault.type === 'server_error' ||
        fault.type === 'stall',
      {
        message: 'cut and slow faults only apply to chat.completions',
        path: ['endpoint'],
      },
    ),
  )

export type FaultInput = z.input<typeof faultInputSchema>
export type FaultSpec = z.output<typeof faultInputSchema>
export type FaultType = FaultSpec['type']
export type ArmedFault = FaultSpec & { readonly id: string; remaining: number }

export interface FaultTarget {
  readonly endpoint: FaultEndpoint
  readonly model: string | undefined
  /** The texts `match` is looked for in: the last user message, or the moderation inputs. */
  readonly texts: readonly string[]
}

function matches(fault: ArmedFault, target: FaultTarget): boolean {
  if (fault.endpoint !== target.endpoint) return false
  if (fault.model !== undefined && fault.model !== target.model) return false
  if (fault.match !== undefined && !target.texts.some((text) => text.includes(fault.match ?? '')))
    return false
  return true
}

/** The armed faults, consumed in the order they were armed. */
export class FaultBook {
  #faults: ArmedFault[] = []
  #nextId = 1

  arm(spec: FaultSpec): ArmedFault {
    const fault: ArmedFault = { ...spec, id: `fault_${this.#nextId++}`, remaining: spec.count }
    this.#faults.push(fault)
    return { ...fault }
  }

  /** Consume one use of the first fault matching the request, if any. */
  take(target: FaultTarget): ArmedFault | undefined {
    const fault = this.#faults.find((candidate) => matches(candidate, target))
    if (fault === undefined) return undefined
    fault.remaining -= 1
    if (fault.remaining <= 0) this.#faults = this.#faults.filter((candidate) => candidate !== fault)
    return { ...fault }
  }

  list(): ArmedFault[] {
    return this.#faults.map((fault) => ({ ...fault }))
  }

  remove(id: string): boolean {
    const before = this.#faults.length
    this.#faults = this.#faults.filter((fault) => fault.id !== id)
    return this.#faults.length < before
  }

  clear(): void {
    this.#faults = []
  }
}
