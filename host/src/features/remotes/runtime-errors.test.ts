import { describe, expect, it } from 'vitest'
import type { RemoteErrorReport, SnapshotRemote } from '@tessera/contracts'
import { watchRemoteRuntimeErrors } from './runtime-errors.ts'

const ai: SnapshotRemote = {
  name: 'ai',
  version: '1.1.0',
  entryUrl: 'http://cdn.test/ai/1.1.0/assets/remoteEntry.js',
  contract: 1,
  basePath: '/assistant',
  nav: { label: 'Assistant', order: 10 },
  slots: [],
  previous: { version: '1.0.0', entryUrl: 'http://cdn.test/ai/1.0.0/assets/remoteEntry.js' },
}

function errorEvent(message: string, filename: string, stack = ''): ErrorEvent {
  const error = new Error(message)
  error.stack = stack
  return new ErrorEvent('error', { message, filename, error })
}

describe('watchRemoteRuntimeErrors', () => {
  it('reports an uncaught error thrown by a remote’s code with its version', () => {
    const target = new EventTarget()
    const reports: RemoteErrorReport[] = []
    watchRemoteRuntimeErrors({ target, remotes: [ai], report: (r) => reports.push(r) })
    target.dispatchEvent(
      errorEvent('x is undefined', 'http://cdn.test/ai/1.1.0/assets/chat-abc.js'),
    )
    target.dispatchEvent(
      errorEvent(
        'render failed',
        'http://app.test/assets/react-dom.js',
        'at Chat (http://cdn.test/ai/1.0.0/assets/chat.js:1:2)',
      ),
    )
    expect(reports).toEqual([
      {
        remote: 'ai',
        version: '1.1.0',
        stage: 'runtime',
        message: 'x is undefined',
        fellBack: false,
      },
      {
        remote: 'ai',
        version: '1.0.0',
        stage: 'runtime',
        message: 'render failed',
        fellBack: false,
      },
    ])
  })

  it('ignores the host’s own errors and stops after a few reports per version', () => {
    const target = new EventTarget()
    const reports: RemoteErrorReport[] = []
    const stop = watchRemoteRuntimeErrors({
      target,
      remotes: [ai],
      report: (r) => reports.push(r),
      maxPerVersion: 2,
    })
    target.dispatchEvent(errorEvent('host bug', 'http://app.test/assets/index.js'))
    for (let i = 0; i < 5; i++)
      target.dispatchEvent(errorEvent('loop', 'http://cdn.test/ai/1.1.0/assets/x.js'))
    expect(reports).toHaveLength(2)
    stop()
    target.dispatchEvent(errorEvent('after stop', 'http://cdn.test/ai/1.0.0/assets/x.js'))
    expect(reports).toHaveLength(2)
  })
})
