/**
 * What the stand-in saw and how each request ended, so tests can assert from the outside that,
 * for example, an upstream stream was aborted by the client and stopped early.
 */
import type { FaultType } from './faults.ts'

export type RequestOutcome =
  /** Still generating (or stalled). */
  | 'in_progress'
  /** Answered in full. */
  | 'completed'
  /** The client went away before the answer was complete; generation stopped. */
  | 'aborted'
  /** A `cut` fault dropped the connection mid-answer. */
  | 'cut'
  /** Answered with an error status (validation, auth, an injected 429 or 5xx). */
  | 'rejected'

export interface RequestRecord {
  readonly id: string
  readonly at: string
  readonly method: string
  readonly path: string
  status: number | null
  outcome: RequestOutcome
  model?: string
  stream?: boolean
  /** The last user message (or the moderation input), cut to 200 characters. */
  lastUserMessage?: string
  fault?: FaultType
  promptTokens?: number
  /** Completion tokens sent so far; for an aborted or cut stream, those sent before it stopped. */
  completionTokens: number
  /** Completion tokens the full answer would have had. */
  plannedCompletionTokens?: number
  endedAt?: string
}

/** A bounded, oldest-first log of recent requests. */
export class RequestLog {
  #records: RequestRecord[] = []
  #nextId = 1

  constructor(private readonly capacity: number) {}

  open(method: string, path: string): RequestRecord {
    const record: RequestRecord = {
      id: `req_${Date.now().toString(36)}${(this.#nextId++).toString(36).padStart(4, '0')}`,
      at: new Date().toISOString(),
      method,
      path,
      status: null,
      outcome: 'in_progress',
      completionTokens: 0,
    }
    this.#records.push(record)
    if (this.#records.length > this.capacity)
      this.#records.splice(0, this.#records.length - this.capacity)
    return record
  }

  /** Move a record to a final outcome; the first final outcome wins. */
  finish(record: RequestRecord, outcome: Exclude<RequestOutcome, 'in_progress'>): void {
    if (record.outcome !== 'in_progress') return
    record.outcome = outcome
    record.endedAt = new Date().toISOString()
  }

  list(): RequestRecord[] {
    return this.#records.map((record) => ({ ...record }))
  }

  clear(): void {
    this.#records = []
  }
}
