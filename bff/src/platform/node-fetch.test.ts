import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createNodeFetch } from './node-fetch.ts'

/** What the test server saw of the last request. */
interface Seen {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

let server: http.Server
let base: string
let seen: Seen | null = null
const connections = new Set<unknown>()
/** Streams the test is driving: each writes when told to. */
const streams = new Map<string, http.ServerResponse>()

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => (body += chunk))
    request.on('end', () => {
      seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      }
      const path = new URL(request.url ?? '/', 'http://test').pathname
      if (path === '/json') {
        response.setHeader('set-cookie', ['a=1', 'b=2'])
        response.writeHead(201, 'Made', {
          'content-type': 'application/json',
          'x-request-id': 'r1',
        })
        response.end(JSON.stringify({ echo: body }))
      } else if (path === '/empty') {
        response.writeHead(204).end()
      } else if (path.startsWith('/events/')) {
        response.writeHead(200, { 'content-type': 'text/event-stream' })
        response.write('data: first\n\n')
        streams.set(path.slice('/events/'.length), response)
      } else if (path === '/hang') {
        // Never answers.
      } else if (path === '/cut-json') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
        response.write('{"half":')
        setTimeout(() => response.socket?.destroy(), 20)
      } else {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('no such thing')
      }
    })
  })
  server.on('connection', (socket) => connections.add(socket))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const nodeFetch = createNodeFetch()

async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { value } = await reader.read()
  return new TextDecoder().decode(value)
}

describe('nodeFetch', () => {
  it('sends the method, headers and body, and answers with a Response', async () => {
    const response = await nodeFetch(`${base}/json?x=1`, {
      method: 'post',
      headers: new Headers({ authorization: 'Bearer k', 'content-type': 'application/json' }),
      body: '{"q":"é"}',
    })
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/json?x=1',
      body: '{"q":"é"}',
      headers: {
        authorization: 'Bearer k',
        'content-type': 'application/json',
        // In bytes: é is two.
        'content-length': '10',
        // Uncompressed: nothing here decodes gzip.
        'accept-encoding': 'identity',
      },
    })
    expect(response).toBeInstanceOf(Response)
    expect(response.status).toBe(201)
    expect(response.statusText).toBe('Made')
    expect(response.ok).toBe(true)
    expect(response.url).toBe(`${base}/json?x=1`)
    expect(response.headers.get('x-request-id')).toBe('r1')
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2'])
    expect(await response.json()).toEqual({ echo: '{"q":"é"}' })
  })

  it('gives an error status as a Response with its body, and an empty one without a body', async () => {
    const missing = await nodeFetch(`${base}/nowhere`)
    expect(missing.status).toBe(404)
    expect(await missing.text()).toBe('no such thing')
    const empty = await nodeFetch(`${base}/empty`, { method: 'DELETE' })
    expect(empty.status).toBe(204)
    expect(empty.body).toBeNull()
  })

  it('keeps the connection for the next request', async () => {
    await (await nodeFetch(`${base}/json`, { method: 'POST', body: 'one' })).text()
    const before = connections.size
    await (await nodeFetch(`${base}/json`, { method: 'POST', body: 'two' })).text()
    await (await nodeFetch(`${base}/json`, { method: 'POST', body: 'three' })).text()
    expect(connections.size).toBe(before)
  })

  it('streams an event stream as it is written, not when it ends', async () => {
    const response = await nodeFetch(`${base}/events/live`)
    const reader = response.body!.getReader()
    expect(await readChunk(reader)).toBe('data: first\n\n')
    streams.get('live')!.write('data: second\n\n')
    expect(await readChunk(reader)).toBe('data: second\n\n')
    streams.get('live')!.end()
    expect((await reader.read()).done).toBe(true)
  })

  it('fails the body of a stream whose connection is cut', async () => {
    const response = await nodeFetch(`${base}/events/cut`)
    const reader = response.body!.getReader()
    await readChunk(reader)
    streams.get('cut')!.socket!.destroy()
    await expect(reader.read()).rejects.toThrow()
  })

  it('fails a JSON answer cut before its end', async () => {
    await expect(nodeFetch(`${base}/cut-json`)).rejects.toThrow()
  })

  it('ends with an AbortError when aborted before, while waiting, or mid-stream', async () => {
    const early = new AbortController()
    early.abort()
    await expect(nodeFetch(`${base}/json`, { signal: early.signal })).rejects.toMatchObject({
      name: 'AbortError',
    })

    const waiting = new AbortController()
    const hanging = nodeFetch(`${base}/hang`, { signal: waiting.signal })
    setTimeout(() => waiting.abort(), 20)
    await expect(hanging).rejects.toMatchObject({ name: 'AbortError' })

    const midStream = new AbortController()
    const response = await nodeFetch(`${base}/events/aborted`, { signal: midStream.signal })
    const reader = response.body!.getReader()
    await readChunk(reader)
    const closed = new Promise((resolve) => streams.get('aborted')!.once('close', resolve))
    midStream.abort()
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' })
    // The server sees the connection go.
    await closed
  })

  it('refuses what it does not send: a Request, a stream body, another scheme', async () => {
    await expect(nodeFetch(new Request(`${base}/json`))).rejects.toThrow(TypeError)
    await expect(
      nodeFetch(`${base}/json`, { method: 'POST', body: new ReadableStream() }),
    ).rejects.toThrow(/string and byte bodies/)
    await expect(nodeFetch('ftp://example.com/file')).rejects.toThrow(/ftp:/)
  })

  it('rejects when nobody listens', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    await expect(nodeFetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    })
  })
})
