import { describe, expect, it } from 'vitest'
import {
  hostProvidedSharedPlugin,
  NO_LOCAL_COPY,
  SATISFY_MODULE,
  SATISFY_STUB_MESSAGE,
} from './host-provided-shared.ts'

type Hook = (this: unknown, ...args: unknown[]) => unknown
const hook = (value: unknown): Hook => {
  if (typeof value === 'function') return value as Hook
  if (value && typeof value === 'object' && 'handler' in value) return value.handler as Hook
  throw new Error('not a hook')
}

describe('hostProvidedSharedPlugin', () => {
  const plugin = hostProvidedSharedPlugin()

  it("takes originjs's satisfy module before originjs does, and nothing else", () => {
    expect(plugin.enforce).toBe('pre')
    const resolve = hook(plugin.resolveId)
    const id = resolve.call({}, SATISFY_MODULE, undefined, {})
    expect(id).toEqual(expect.any(String))
    expect(resolve.call({}, 'react', undefined, {})).toBeNull()
    expect(hook(plugin.load).call({}, '/src/plugin.tsx')).toBeNull()
  })

  it('gives the fallback copy of a shared module nothing to bundle', () => {
    const id = hook(plugin.resolveId).call({}, NO_LOCAL_COPY, undefined, {}) as string
    expect(hook(plugin.load).call({}, id)).toBe('export {}\n')
  })

  it('loads a satisfy that throws, so a remote that did check versions would fail loudly', async () => {
    const id = hook(plugin.resolveId).call({}, SATISFY_MODULE, undefined, {}) as string
    const code = hook(plugin.load).call({}, id) as string
    const url = `data:text/javascript,${encodeURIComponent(code)}`
    const stub = (await import(/* @vite-ignore */ url)) as { satisfy: () => boolean }
    expect(() => stub.satisfy()).toThrow(SATISFY_STUB_MESSAGE)
  })
})
