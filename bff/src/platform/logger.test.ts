import { describe, expect, it } from 'vitest'
import type { LogLevel } from './env.ts'
import { createLogger } from './logger.ts'

function capture(level: LogLevel) {
  const lines: string[] = []
  const logger = createLogger({ level, write: (line) => lines.push(line), now: () => 0 })
  return { lines, logger }
}

describe('createLogger', () => {
  it('writes one JSON object per line with level, time and msg first', () => {
    const { lines, logger } = capture('info')
    logger.info('hello', { requestId: 'r1' })
    expect(lines).toHaveLength(1)
    expect(Object.keys(JSON.parse(lines[0] ?? '') as object)).toEqual([
      'level',
      'time',
      'msg',
      'requestId',
    ])
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      level: 'info',
      time: '1970-01-01T00:00:00.000Z',
      msg: 'hello',
      requestId: 'r1',
    })
  })

  it('writes members a caller formatted as the line info writes for the same fields', () => {
    const { lines, logger } = capture('info')
    logger.info('request', { method: 'GET', path: '/a"b', status: 200 })
    logger.infoMembers?.('request', '"method":"GET","path":"/a\\"b","status":200')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toBe(lines[0])
    const quiet = capture('warn')
    quiet.logger.infoMembers?.('request', '"status":200')
    expect(quiet.lines).toEqual([])
  })

  it('drops lines below its level and writes nothing when silent', () => {
    const info = capture('warn')
    info.logger.info('quiet')
    info.logger.error('loud')
    expect(info.lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['loud'])
    const silent = capture('silent')
    silent.logger.error('nothing')
    expect(silent.lines).toEqual([])
  })

  it('keeps an error’s name, message and stack', () => {
    const { lines, logger } = capture('debug')
    logger.error('failed', { error: new TypeError('boom') })
    const line = JSON.parse(lines[0] ?? '') as {
      error: { name: string; message: string; stack: string }
    }
    expect(line.error.name).toBe('TypeError')
    expect(line.error.message).toBe('boom')
    expect(line.error.stack).toContain('boom')
  })

  it('keeps an error one object down, as in { details: { error } }', () => {
    const { lines, logger } = capture('debug')
    logger.warn('failed', { details: { error: new RangeError('deep') } })
    const line = JSON.parse(lines[0] ?? '') as { details: { error: { message: string } } }
    expect(line.details.error.message).toBe('deep')
  })

  it('does not let fields overwrite level or msg', () => {
    const { lines, logger } = capture('debug')
    logger.warn('real', { level: 'fake', msg: 'fake' })
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'warn', msg: 'real' })
  })
})
