import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Sql } from '@tessera/db/sql'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBffTestDatabase, databaseSetupTimeout } from '../testing/identity.ts'
import { sseReader } from '../testing/app.ts'
import { startBff } from './node.ts'

let dir: string
let sql: Sql

beforeAll(async () => {
  sql = await createBffTestDatabase()
  dir = await mkdtemp(join(tmpdir(), 'tessera-drain-'))
  await mkdir(join(dir, 'dist'), { recursive: true })
  await writeFile(join(dir, 'dist', 'index.html'), '<!doctype html><title>host</title>')
}, databaseSetupTimeout)

afterAll(async () => {
  await sql.close()
  await rm(dir, { recursive: true, force: true })
})

const start = (drainSeconds: number) =>
  startBff({
    env: {
      PORT: '0',
      LOG_LEVEL: 'silent',
      HOST_DIST: join(dir, 'dist'),
      DRAIN_TIMEOUT_SECONDS: String(drainSeconds),
    },
    sql,
  })

/**
 * A request whose body arrives slowly: it is running until `finish` sends the rest. Resolves the
 * status line's code once the server answers.
 */
function slowRequest(port: number, origin: string) {
  const body = JSON.stringify({ remote: 'billing', version: '1.0.0', stage: 'entry', message: 'x' })
  let socket!: Socket
  const opened = new Promise<void>((resolve) => {
    socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `POST /api/telemetry/remote-errors HTTP/1.1\r\nHost: bff\r\nOrigin: ${origin}\r\n` +
          `X-Tessera-Csrf: 1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
          body.slice(0, 5),
      )
      resolve()
    })
  })
  const answered = new Promise<string>((resolve) => {
    let answer = ''
    socket.on('data', (chunk) => (answer += chunk.toString()))
    socket.on('close', () => resolve(answer.split(' ')[1] ?? 'cut'))
    socket.on('error', () => undefined)
  })
  return { opened, answered, finish: () => socket.write(body.slice(5)) }
}

describe('drain (SIGTERM)', () => {
  it('fails readiness at once, refuses new connections and lets a running request finish', async () => {
    const bff = await start(25)
    expect((await fetch(`${bff.url}/api/health/ready`)).status).toBe(200)
    const running = slowRequest(bff.port, bff.url)
    await running.opened
    // The request has reached the server before it drains.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const drained = bff.drain()
    expect(bff.readiness.draining).toBe(true)
    expect((await bff.readiness.check()).checks).toHaveProperty('draining')
    await expect(fetch(`${bff.url}/api/health`)).rejects.toThrow()
    let done = false
    void drained.then(() => (done = true))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(done).toBe(false)
    running.finish()
    expect(await running.answered).toBe('202')
    await drained
  })

  it('cuts a request still running when the drain timeout is over', async () => {
    const bff = await start(1)
    const running = slowRequest(bff.port, bff.url)
    await running.opened
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await bff.drain()
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(await running.answered).toBe('cut')
  })

  it('ends event streams with a short retry hint so browsers reconnect to another replica', async () => {
    const bff = await start(25)
    const stream = sseReader(await fetch(`${bff.url}/api/events`))
    const opened = await stream.next((frame) => frame.data.includes('connection.opened'))
    expect(opened.retry).toBe('2000')
    const drained = bff.drain()
    await stream.closed()
    const hint = stream.frames.at(-1)
    expect(hint?.data).toBe('')
    expect(Number(hint?.retry)).toBeGreaterThanOrEqual(250)
    expect(Number(hint?.retry)).toBeLessThanOrEqual(1000)
    await drained
  })
})
