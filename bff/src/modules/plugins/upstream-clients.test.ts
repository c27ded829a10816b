import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeUpstreamClient } from './node-upstream-client.ts'
import { fetchUpstreamClient, UpstreamTimeoutError } from './plugin-proxy.ts'
import type { UpstreamClient } from './plugin-proxy.ts'

let server: Server
let origin: string
let deadOrigin: string

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/hang') return
    if (request.url === '/stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write('data: one\n\n')
      setTimeout(() => response.end('data: two\n\n'), 50)
      return
    }
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-one': 'a' })
      response.end(
        JSON.stringify({ method: request.method, body: Buffer.concat(chunks).toString() }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dead = createServer()
  await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve))
  deadOrigin = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`
  await new Promise((resolve) => dead.close(resolve))
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const clients: Array<[string, () => UpstreamClient]> = [
  ['node:http', createNodeUpstreamClient],
  ['fetch', () => fetchUpstreamClient(fetch)],
]

describe.each(clients)('the %s upstream client', (_name, create) => {
  it('sends a body and reads the whole answer with its headers', async () => {
    const answer = await create()(
      {
        url: new URL(`${origin}/items`),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode('{"a":1}'),
      },
      2000,
    )
    expect(answer.status).toBe(201)
    expect(answer.headers).toContainEqual(['x-one', 'a'])
    expect(answer.body).toBeInstanceOf(Uint8Array)
    expect(JSON.parse(new TextDecoder().decode(answer.body as Uint8Array))).toEqual({
      method: 'POST',
      body: '{"a":1}',
    })
  })

  it('hands an event stream over as it arrives', async () => {
    const answer = await create()(
      { url: new URL(`${origin}/stream`), method: 'GET', headers: {}, body: null },
      2000,
    )
    expect(answer.body).toBeInstanceOf(ReadableStream)
    const text = await new Response(answer.body).text()
    expect(text).toBe('data: one\n\ndata: two\n\n')
  })

  it('gives up after its time with UpstreamTimeoutError', async () => {
    const started = Date.now()
    await expect(
      create()({ url: new URL(`${origin}/hang`), method: 'GET', headers: {}, body: null }, 200),
    ).rejects.toBeInstanceOf(UpstreamTimeoutError)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('fails at once, not as a timeout, when nothing listens', async () => {
    const failure = create()(
      { url: new URL(`${deadOrigin}/x`), method: 'GET', headers: {}, body: null },
      5000,
    )
    await expect(failure).rejects.toThrow()
    await expect(failure).rejects.not.toBeInstanceOf(UpstreamTimeoutError)
  })
})
