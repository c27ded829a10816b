import { createServer } from 'node:http'
import type { Server } from 'node:http'
import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { acceptProxyProtocol, parseProxyHeader } from './proxy-protocol.ts'

const ascii = (text: string) => new TextEncoder().encode(text)

const signature = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]

function v2(command: number, family: number, addresses: number[], extra: number[] = []) {
  const body = [...addresses, ...extra]
  return new Uint8Array([
    ...signature,
    0x20 | command,
    (family << 4) | 1,
    body.length >> 8,
    body.length & 0xff,
    ...body,
  ])
}

const ipv4Pair = [198, 51, 100, 7, 10, 0, 0, 1, 0xc3, 0x50, 0x01, 0xbb]
const ipv6Pair = [
  ...[0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), 0x07],
  ...[0x20, 0x01, 0x0d, 0xb8, ...Array<number>(11).fill(0), 0x01],
  ...[0xc3, 0x50, 0x01, 0xbb],
]

describe('parseProxyHeader', () => {
  it('reads the client address from a v1 header, and its length', () => {
    const header = 'PROXY TCP4 198.51.100.7 10.0.0.1 50000 443\r\n'
    expect(parseProxyHeader(ascii(`${header}GET / HTTP/1.1\r\n`))).toEqual({
      kind: 'complete',
      length: header.length,
      source: '198.51.100.7',
    })
    expect(parseProxyHeader(ascii('PROXY TCP6 2001:DB8::7 2001:db8::1 50000 443\r\n'))).toEqual({
      kind: 'complete',
      length: 46,
      source: '2001:db8::7',
    })
    expect(parseProxyHeader(ascii('PROXY UNKNOWN\r\n'))).toEqual({
      kind: 'complete',
      length: 15,
      source: undefined,
    })
  })

  it('reads the client address from a v2 header, IPv4 or IPv6, with or without extensions', () => {
    expect(parseProxyHeader(v2(1, 1, ipv4Pair))).toEqual({
      kind: 'complete',
      length: 28,
      source: '198.51.100.7',
    })
    expect(parseProxyHeader(v2(1, 2, ipv6Pair, [0x04, 0x00, 0x01, 0x00]))).toEqual({
      kind: 'complete',
      length: 56,
      source: '2001:db8::7',
    })
    // LOCAL (the proxy's health check) and UNIX sockets: the peer itself is the client.
    expect(parseProxyHeader(v2(0, 0, []))).toEqual({
      kind: 'complete',
      length: 16,
      source: undefined,
    })
    expect(parseProxyHeader(v2(1, 3, Array<number>(216).fill(0)))).toMatchObject({
      source: undefined,
    })
  })

  it('asks for more bytes while a header is incomplete', () => {
    expect(parseProxyHeader(ascii('PRO'))).toEqual({ kind: 'incomplete' })
    expect(parseProxyHeader(ascii('PROXY TCP4 198.51.100.7'))).toEqual({ kind: 'incomplete' })
    expect(parseProxyHeader(new Uint8Array(signature.slice(0, 5)))).toEqual({ kind: 'incomplete' })
    expect(parseProxyHeader(v2(1, 1, ipv4Pair).subarray(0, 20))).toEqual({ kind: 'incomplete' })
  })

  it('refuses a connection that does not start with a well-formed header', () => {
    for (const bad of [
      'GET / HTTP/1.1\r\n',
      'PROXY TCP4 198.51.100.7 10.0.0.1 50000\r\n',
      'PROXY TCP4 2001:db8::7 10.0.0.1 50000 443\r\n',
      'PROXY TCP4 not-an-address 10.0.0.1 50000 443\r\n',
      'PROXY TCP4 198.51.100.7 10.0.0.1 50000 443 extra\r\n',
      `PROXY TCP4 ${'1'.repeat(120)}`,
    ]) {
      expect(parseProxyHeader(ascii(bad))).toMatchObject({ kind: 'invalid' })
    }
    const wrongVersion = v2(1, 1, ipv4Pair)
    wrongVersion[12] = 0x11
    expect(parseProxyHeader(wrongVersion)).toMatchObject({ kind: 'invalid' })
    expect(parseProxyHeader(v2(1, 2, ipv4Pair))).toMatchObject({ kind: 'invalid' })
  })
})

describe('acceptProxyProtocol', () => {
  let server: Server | undefined
  afterEach(async () => {
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })

  /** An HTTP server answering with the client address it was given for the connection. */
  async function start(timeoutMs?: number) {
    const reasons: string[] = []
    const created = createServer((request, response) => {
      response.end(sourceOf(request.socket) ?? `peer ${request.socket.remoteAddress}`)
    })
    const sourceOf = acceptProxyProtocol(created, {
      onInvalid: (reason) => reasons.push(reason),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    })
    server = created
    await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve))
    return { port: (created.address() as AddressInfo).port, reasons }
  }

  /** Sends raw bytes (in the given pieces) and reads everything until the server closes. */
  function exchange(port: number, pieces: (string | Uint8Array)[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1')
      let answer = ''
      socket.on('data', (chunk) => (answer += chunk.toString()))
      socket.on('close', () => resolve(answer))
      socket.on('error', reject)
      socket.on('connect', () => {
        for (const piece of pieces) socket.write(piece)
      })
    })
  }

  const request = 'GET / HTTP/1.1\r\nHost: bff\r\nConnection: close\r\n\r\n'

  it('serves HTTP after a v1 header, with the header’s client address, even split across packets', async () => {
    const { port } = await start()
    const whole = await exchange(port, [`PROXY TCP4 198.51.100.7 10.0.0.1 50000 443\r\n${request}`])
    expect(whole).toMatch(/^HTTP\/1\.1 200 OK/)
    expect(whole).toMatch(/198\.51\.100\.7$/)
    const split = await exchange(port, [
      'PROXY TCP6 2001:db8::7 ',
      '2001:db8::1 50000 443\r',
      `\n${request}`,
    ])
    expect(split).toMatch(/2001:db8::7$/)
  })

  it('serves HTTP after a v2 header, and keeps the peer for a LOCAL one', async () => {
    const { port } = await start()
    expect(await exchange(port, [v2(1, 1, ipv4Pair), request])).toMatch(/198\.51\.100\.7$/)
    expect(await exchange(port, [v2(0, 0, []), request])).toMatch(/peer 127\.0\.0\.1$/)
  })

  it('closes a connection that starts without a header, or sends none in time', async () => {
    const { port, reasons } = await start(100)
    expect(await exchange(port, [request])).toBe('')
    expect(await exchange(port, ['PROXY TCP4 198.51'])).toBe('')
    expect(reasons).toEqual(['no PROXY protocol header', 'PROXY header not received in time'])
  })
})
