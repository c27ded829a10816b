import { ApiError } from '@tessera/contracts'
import type { Logger } from '../../platform/logger.ts'

/** RFC 9110 §7.6.1: headers about one connection, never forwarded (plus the legacy Proxy-*). */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'http2-settings',
])

/**
 * Request headers the browser sends that an upstream must not see: its credentials for the BFF
 * (the plugin gets the BFF's token instead), the framing the BFF redoes, and claims about the
 * client only the BFF may make.
 */
const droppedRequestHeaders = new Set([
  ...hopByHop,
  'host',
  'cookie',
  'authorization',
  'content-length',
  'expect',
  'accept-encoding',
  'x-request-id',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
])

/** Response headers the browser must not get from an upstream: framing, and cookies. */
const droppedResponseHeaders = new Set([...hopByHop, 'set-cookie'])

/** The header names a `Connection` header lists: hop-by-hop for this message. */
function connectionNamed(value: string | null): Set<string> | null {
  if (value === null) return null
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
  return names.length === 0 ? null : new Set(names)
}

/** The headers to send upstream: the browser's, less what `droppedRequestHeaders` names. */
export function upstreamRequestHeaders(
  incoming: Headers,
  added: Record<string, string>,
): Record<string, string> {
  const named = connectionNamed(incoming.get('connection'))
  const headers: Record<string, string> = {}
  incoming.forEach((value, name) => {
    if (droppedRequestHeaders.has(name) || named?.has(name) === true) return
    headers[name] = value
  })
  // Uncompressed: the body passes through as it comes, whatever client fetched it.
  headers['accept-encoding'] = 'identity'
  return Object.assign(headers, added)
}

/**
 * The headers to give the browser: the upstream's (as name/value pairs, names in lower case),
 * less hop-by-hop headers and cookies.
 */
export function browserResponseHeaders(upstream: Iterable<readonly [string, string]>): Headers {
  const pairs = [...upstream]
  const connection = pairs.find(([name]) => name === 'connection')
  const named = connectionNamed(connection === undefined ? null : connection[1])
  const headers = new Headers()
  for (const [name, value] of pairs) {
    if (droppedResponseHeaders.has(name) || named?.has(name) === true) continue
    headers.append(name, value)
  }
  // What an upstream answers is one user's: no shared cache keeps it unless the upstream says so.
  if (!headers.has('cache-control')) headers.set('cache-control', 'private, no-store')
  return headers
}

export interface UpstreamRequest {
  url: URL
  method: string
  headers: Record<string, string>
  body: Uint8Array<ArrayBuffer> | null
}

/** An upstream's answer: an event stream as it arrives, anything else read whole. */
export interface UpstreamAnswer {
  status: number
  /** Its headers as sent, names in lower case. */
  headers: Array<readonly [string, string]>
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null
}

/** Thrown by an upstream client when the answer did not come within its time. */
export class UpstreamTimeoutError extends Error {
  constructor() {
    super('the upstream did not answer in time')
    this.name = 'UpstreamTimeoutError'
  }
}

/**
 * Sends one request upstream and waits up to `timeoutMs` for the answer: its headers for an event
 * stream, the whole of anything else. Rejects with `UpstreamTimeoutError`, or the network's error.
 */
export type UpstreamClient = (
  request: UpstreamRequest,
  timeoutMs: number,
) => Promise<UpstreamAnswer>

const isEventStream = (headers: Array<readonly [string, string]>): boolean =>
  headers.some(([name, value]) => name === 'content-type' && value.startsWith('text/event-stream'))

/** An upstream client over `fetch` (Web-standard; the Node entry uses node-upstream-client.ts). */
export function fetchUpstreamClient(fetchFn: typeof fetch): UpstreamClient {
  return async (request, timeoutMs) => {
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    try {
      const response = await fetchFn(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        redirect: 'manual',
      })
      const headers: Array<readonly [string, string]> = []
      response.headers.forEach((value, name) => headers.push([name, value]))
      const body = isEventStream(headers)
        ? response.body
        : new Uint8Array(await response.arrayBuffer())
      return { status: response.status, headers, body }
    } catch (error) {
      throw timedOut ? new UpstreamTimeoutError() : error
    } finally {
      clearTimeout(timer)
    }
  }
}

/**
 * Sends one request to a plugin's upstream and gives back what the browser gets: the upstream's
 * answer (a stream passes through as it arrives; a 4xx as it is), or a catalogue error for a 5xx,
 * a connection that fails, or no answer within `timeoutMs`.
 */
export async function forwardToUpstream(
  plugin: string,
  request: UpstreamRequest,
  deps: { client: UpstreamClient; timeoutMs: number; logger: Logger },
): Promise<Response> {
  let upstream: UpstreamAnswer
  try {
    upstream = await deps.client(request, deps.timeoutMs)
  } catch (error) {
    if (error instanceof UpstreamTimeoutError) {
      deps.logger.warn('plugin upstream timed out', { plugin, timeoutMs: deps.timeoutMs })
      throw new ApiError('plugin_timeout', {
        message: `The ${plugin} service did not answer within ${deps.timeoutMs / 1000} s. Try again in a minute.`,
        details: { plugin, timeoutMs: deps.timeoutMs },
      })
    }
    deps.logger.warn('plugin upstream unreachable', { plugin, error })
    throw new ApiError('plugin_unavailable', {
      message: `The ${plugin} service could not be reached. Try again in a minute.`,
      details: { plugin, reason: 'unreachable' },
    })
  }
  const { status, body } = upstream
  const empty = request.method === 'HEAD' || status === 204 || status === 205 || status === 304
  if ((status >= 500 || empty) && body instanceof ReadableStream) await body.cancel()
  if (status >= 500) {
    // Its body may hold internals (a stack trace): the browser gets the catalogue's sentence.
    deps.logger.warn('plugin upstream failed', { plugin, upstreamStatus: status })
    throw new ApiError('plugin_unavailable', {
      message: `The ${plugin} service failed to answer (status ${status}). Try again in a minute; if it keeps happening, quote the reference.`,
      details: { plugin, reason: 'upstream_error', upstreamStatus: status },
    })
  }
  // Bytes rather than a stream where the whole answer is here: the server writes it at once.
  return new Response(empty ? null : body, {
    status,
    headers: browserResponseHeaders(upstream.headers),
  })
}
