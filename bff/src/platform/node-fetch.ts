// Node-only: node.ts gives it to the app for the model's and Stripe's requests.
import http from 'node:http'
import https from 'node:https'

/**
 * `fetch` on `node:http`, for the OpenAI and Stripe SDKs (docs/decisions/012 and 040). Node's own
 * `fetch` (undici) builds a WHATWG Request, several AbortSignals and a chain of web streams for
 * every request; measured on this 2-core VM, a bare moderation request cost about 0.9 ms of CPU
 * through it and 0.3 ms through `node:http`, and the BFF makes two requests before each answer's
 * first token (and a webhook's re-fetch from Stripe holds its batch's transaction open).
 *
 * What the SDKs send and read, and no more: string or byte bodies (JSON, Stripe's form), any method and
 * headers, an AbortSignal; a real `Response` back, its body streamed as the bytes arrive.
 * Connections are kept alive. It asks for uncompressed answers (`Accept-Encoding: identity`;
 * fetch would offer gzip and decode it), so nothing needs decoding. Anything else (a `Request` object, a stream or
 * form body) is a TypeError, so a future SDK that needs more fails loudly rather than sending
 * something else.
 */
export function createNodeFetch(): typeof fetch {
  const agents: Record<string, http.Agent> = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  }

  return function nodeFetch(input: string | URL | Request, init: RequestInit = {}) {
    if (typeof input !== 'string' && !(input instanceof URL))
      return Promise.reject(new TypeError('nodeFetch takes a URL, not a Request'))
    const url = typeof input === 'string' ? new URL(input) : input
    const agent = agents[url.protocol]
    if (agent === undefined)
      return Promise.reject(new TypeError(`nodeFetch cannot fetch ${url.protocol} URLs`))
    const body = init.body ?? null
    if (body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))
      return Promise.reject(new TypeError('nodeFetch sends only string and byte bodies'))
    const signal = init.signal ?? null
    if (signal?.aborted) return Promise.reject(abortError(signal))

    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value
    })
    if (body !== null) headers['content-length'] = String(Buffer.byteLength(body))
    headers['accept-encoding'] ??= 'identity'
    const method = (init.method ?? 'GET').toUpperCase()

    return new Promise<Response>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method,
        headers,
        agent,
      })
      // After an abort the body fails with the abort error, as fetch's does (the SDK ends an
      // aborted stream quietly), not with the connection's.
      let aborted: Error | null = null
      const onAbort = () => {
        aborted = abortError(signal!)
        request.destroy(aborted)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = () => signal?.removeEventListener('abort', onAbort)
      request.once('error', (error) => {
        done()
        reject(error)
      })
      request.once('response', (response) => {
        try {
          resolve(responseOf(response))
        } catch (error) {
          // A status a Response cannot have (below 200, above 599): the server is broken.
          done()
          request.destroy()
          reject(error)
        }
      })
      const responseOf = (response: http.IncomingMessage): Response | Promise<Response> => {
        const status = response.statusCode ?? 0
        const responseHeaders = new Headers()
        const raw = response.rawHeaders
        for (let index = 0; index < raw.length; index += 2)
          responseHeaders.append(raw[index]!, raw[index + 1]!)
        const init = { status, statusText: response.statusMessage ?? '', headers: responseHeaders }
        const failure = (error: Error) => aborted ?? error
        if (method === 'HEAD' || status === 204 || status === 205 || status === 304) {
          const empty = fetched(null, init, url.href)
          done()
          response.resume()
          return empty
        }
        return responseHeaders.get('content-type')?.startsWith('text/event-stream')
          ? fetched(bodyOf(response, done, failure), init, url.href)
          : readWhole(response, init, url.href, done, failure)
      }
      request.end(body ?? undefined)
    })
  } as typeof fetch
}

/**
 * A Response as `fetch` gives it, with the URL it came from. (A constructed Response has none, and
 * the SDK reads `url` for every request's debug line, which on @hono/node-server's lightweight
 * Response builds the full one.)
 */
function fetched(
  body: ConstructorParameters<typeof Response>[0],
  init: ResponseInit,
  href: string,
): Response {
  const response = new Response(body, init)
  Object.defineProperty(response, 'url', { value: href, enumerable: true })
  return response
}

/** A response that is not a stream (JSON, an error), read to its end before it is handed over. */
function readWhole(
  response: http.IncomingMessage,
  init: ResponseInit,
  href: string,
  done: () => void,
  failure: (error: Error) => Error,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    response.on('data', (chunk: Buffer) => chunks.push(chunk))
    response.once('end', () => {
      done()
      resolve(fetched(Buffer.concat(chunks), init, href))
    })
    response.once('error', (error) => {
      done()
      reject(failure(error))
    })
  })
}

/** The response's bytes as a web stream: paused while the reader is behind, ended on a cut. */
function bodyOf(
  response: http.IncomingMessage,
  done: () => void,
  failure: (error: Error) => Error,
): ReadableStream<Uint8Array> {
  // Once errored or closed, nothing more goes in (enqueueing then would throw).
  let open = true
  return new ReadableStream<Uint8Array>({
    start(controller) {
      response.on('data', (chunk: Buffer) => {
        if (!open) return
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        if ((controller.desiredSize ?? 0) <= 0) response.pause()
      })
      response.once('end', () => {
        done()
        if (!open) return
        open = false
        controller.close()
      })
      // A connection cut before the end: the reader gets the error, as with fetch.
      response.once('error', (error) => {
        done()
        if (!open) return
        open = false
        controller.error(failure(error))
      })
    },
    pull() {
      response.resume()
    },
    cancel() {
      open = false
      done()
      response.destroy()
    },
  })
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  return reason instanceof Error && reason.name === 'AbortError'
    ? reason
    : new DOMException('This operation was aborted', 'AbortError')
}
