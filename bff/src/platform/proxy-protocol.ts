import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { formatAddress, parseAddress } from './client-address.ts'

/**
 * What the start of a connection says under the PROXY protocol (HAProxy's `send-proxy` and
 * `send-proxy-v2`): the header's length and the client's address (undefined for a health check
 * or an unknown family: the proxy itself is the peer), or that more bytes are needed, or that
 * the connection does not start with a header at all.
 */
export type ProxyHeader =
  | { kind: 'complete'; length: number; source: string | undefined }
  | { kind: 'incomplete' }
  | { kind: 'invalid'; reason: string }

const v2Signature = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]
const v1Prefix = [...'PROXY '].map((char) => char.charCodeAt(0))
/** The longest v1 header, CRLF included (the specification's own bound). */
const v1MaxLength = 107

function startsWith(bytes: Uint8Array, prefix: readonly number[]): 'yes' | 'no' | 'so far' {
  const length = Math.min(bytes.length, prefix.length)
  for (let index = 0; index < length; index += 1) {
    if (bytes[index] !== prefix[index]) return 'no'
  }
  return bytes.length >= prefix.length ? 'yes' : 'so far'
}

function parseV1(bytes: Uint8Array): ProxyHeader {
  const end = bytes.subarray(0, v1MaxLength).findIndex((byte, index) => {
    return byte === 0x0d && bytes[index + 1] === 0x0a
  })
  if (end < 0) {
    return bytes.length >= v1MaxLength
      ? { kind: 'invalid', reason: 'PROXY v1 header without CRLF' }
      : { kind: 'incomplete' }
  }
  const line = String.fromCharCode(...bytes.subarray(0, end))
  const [, family, source, destination, sourcePort, destinationPort, extra] = line.split(' ')
  if (family === 'UNKNOWN') return { kind: 'complete', length: end + 2, source: undefined }
  const port = /^(?:0|[1-9]\d{0,4})$/
  const parsed = source === undefined ? undefined : parseAddress(source)
  const familyMatches =
    (family === 'TCP4' && !(source ?? '').includes(':')) ||
    (family === 'TCP6' && (source ?? '').includes(':'))
  if (
    !familyMatches ||
    parsed === undefined ||
    destination === undefined ||
    parseAddress(destination) === undefined ||
    !port.test(sourcePort ?? '') ||
    !port.test(destinationPort ?? '') ||
    extra !== undefined
  ) {
    return { kind: 'invalid', reason: 'malformed PROXY v1 header' }
  }
  return { kind: 'complete', length: end + 2, source: formatAddress(parsed) }
}

function parseV2(bytes: Uint8Array): ProxyHeader {
  if (bytes.length < 16) return { kind: 'incomplete' }
  const versionCommand = bytes[12] ?? 0
  const familyTransport = bytes[13] ?? 0
  const length = 16 + (((bytes[14] ?? 0) << 8) | (bytes[15] ?? 0))
  if (versionCommand >> 4 !== 2) return { kind: 'invalid', reason: 'PROXY header version not 2' }
  const command = versionCommand & 0x0f
  if (command > 1) return { kind: 'invalid', reason: 'unknown PROXY v2 command' }
  if (bytes.length < length) return { kind: 'incomplete' }
  // LOCAL: the proxy's own connection (a health check); its peer address is the right one.
  if (command === 0) return { kind: 'complete', length, source: undefined }
  const family = familyTransport >> 4
  const addressBytes = family === 1 ? 4 : family === 2 ? 16 : 0
  if (addressBytes === 0) return { kind: 'complete', length, source: undefined }
  if (length - 16 < addressBytes * 2 + 4) {
    return { kind: 'invalid', reason: 'PROXY v2 addresses shorter than their family' }
  }
  let address = 0n
  for (const byte of bytes.subarray(16, 16 + addressBytes)) address = (address << 8n) | BigInt(byte)
  if (family === 1) address |= 0xffffn << 32n
  return { kind: 'complete', length, source: formatAddress(address) }
}

/** Reads a PROXY protocol v1 or v2 header from the first bytes of a connection. */
export function parseProxyHeader(bytes: Uint8Array): ProxyHeader {
  if (startsWith(bytes, v2Signature) === 'yes') return parseV2(bytes)
  if (startsWith(bytes, v1Prefix) === 'yes') return parseV1(bytes)
  if (startsWith(bytes, v2Signature) === 'so far' || startsWith(bytes, v1Prefix) === 'so far') {
    return { kind: 'incomplete' }
  }
  return { kind: 'invalid', reason: 'no PROXY protocol header' }
}

/**
 * Makes an HTTP server read a PROXY protocol header at the start of every connection, before
 * HTTP: a connection without one, or that takes longer than `timeoutMs` to send it, is closed.
 * Returns where each connection's client address is found (undefined: its TCP peer).
 */
export function acceptProxyProtocol(
  server: Server,
  options: { timeoutMs?: number; onInvalid?: (reason: string) => void } = {},
): (socket: Socket) => string | undefined {
  const sources = new WeakMap<Socket, string>()
  // The HTTP server's own handler: it gets each connection once its header has been read.
  const handlers = server.listeners('connection') as ((socket: Socket) => void)[]
  server.removeAllListeners('connection')
  server.on('connection', (socket: Socket) => {
    let received = new Uint8Array(0)
    const timer = setTimeout(
      () => fail('PROXY header not received in time'),
      options.timeoutMs ?? 5000,
    )
    const fail = (reason: string) => {
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('error', onError)
      options.onInvalid?.(reason)
      socket.destroy()
    }
    // Until the HTTP server has the socket nobody else listens for its errors (a reset, say).
    const onError = (error: Error) =>
      fail(`connection failed before its PROXY header: ${error.message}`)
    const onData = (chunk: Buffer) => {
      const joined = new Uint8Array(received.length + chunk.length)
      joined.set(received)
      joined.set(chunk, received.length)
      received = joined
      const header = parseProxyHeader(received)
      if (header.kind === 'incomplete') return
      if (header.kind === 'invalid') {
        fail(header.reason)
        return
      }
      clearTimeout(timer)
      socket.off('data', onData)
      socket.off('error', onError)
      socket.pause()
      if (header.source !== undefined) sources.set(socket, header.source)
      const rest = received.subarray(header.length)
      if (rest.length > 0) socket.unshift(Buffer.from(rest))
      for (const handler of handlers) handler.call(server, socket)
      // The HTTP parser is attached now: let the bytes after the header flow to it.
      process.nextTick(() => socket.resume())
    }
    socket.on('data', onData)
    socket.on('error', onError)
    socket.once('close', () => clearTimeout(timer))
  })
  return (socket) => sources.get(socket)
}
