import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const module = fileURLToPath(new URL('./stdout-lines.ts', import.meta.url))

function run(script: string): string[] {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  )
  expect(result.status, result.stderr).toBe(0)
  return result.stdout.split('\n').filter(Boolean)
}

describe('writeStdoutLine', () => {
  it('writes every line, in order, across turns of the event loop', () => {
    const lines = run(`
      import { writeStdoutLine } from ${JSON.stringify(module)}
      writeStdoutLine('one'); writeStdoutLine('two')
      setImmediate(() => setImmediate(() => writeStdoutLine('three')))
    `)
    expect(lines).toEqual(['one', 'two', 'three'])
  })

  it('writes the lines still pending when the process exits at once', () => {
    const lines = run(`
      import { writeStdoutLine } from ${JSON.stringify(module)}
      writeStdoutLine('last words'); process.exit(0)
    `)
    expect(lines).toEqual(['last words'])
  })
})
