import type { Notice } from '@tessera/contracts'
import { browserTimers, type Timers } from '../runtime.ts'

export interface Toast extends Notice {
  id: number
  /** Which plugin raised it, when one did; the host's own notices have none. */
  source: string | null
}

export interface NoticeStore {
  notify(notice: Notice, source?: string | null): number
  dismiss(id: number): void
  /** Stops the auto-dismiss clock while someone reads or focuses the toast. */
  hold(id: number): void
  release(id: number): void
  current(): readonly Toast[]
  subscribe(listener: () => void): () => void
}

export interface NoticeStoreOptions {
  timers?: Timers
  /** How long info and success toasts stay. */
  durationMs?: number
  /** Errors stay longer: people need time to read them and note the code. */
  errorDurationMs?: number
  /** Older toasts are dropped beyond this many, so a noisy plugin cannot fill the screen. */
  max?: number
}

/** The toasts behind `platform.notify`. */
export function createNoticeStore({
  timers = browserTimers,
  durationMs = 5000,
  errorDurationMs = 12_000,
  max = 4,
}: NoticeStoreOptions = {}): NoticeStore {
  let toasts: readonly Toast[] = []
  let nextId = 1
  const clocks = new Map<number, unknown>()
  const listeners = new Set<() => void>()

  function emit(): void {
    for (const listener of [...listeners]) listener()
  }

  function stopClock(id: number): void {
    const handle = clocks.get(id)
    if (handle !== undefined) timers.clearTimeout(handle)
    clocks.delete(id)
  }

  function startClock(toast: Toast): void {
    stopClock(toast.id)
    const ms = toast.kind === 'error' ? errorDurationMs : durationMs
    clocks.set(
      toast.id,
      timers.setTimeout(() => dismiss(toast.id), ms),
    )
  }

  function dismiss(id: number): void {
    stopClock(id)
    const next = toasts.filter((toast) => toast.id !== id)
    if (next.length === toasts.length) return
    toasts = next
    emit()
  }

  return {
    notify(notice, source = null) {
      const toast: Toast = { ...notice, id: nextId++, source }
      const kept = [...toasts, toast]
      for (const dropped of kept.slice(0, Math.max(0, kept.length - max))) stopClock(dropped.id)
      toasts = kept.slice(-max)
      startClock(toast)
      emit()
      return toast.id
    },
    dismiss,
    hold: stopClock,
    release(id) {
      const toast = toasts.find((candidate) => candidate.id === id)
      if (toast) startClock(toast)
    },
    current: () => toasts,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}
