// Node-only: node.ts gives it to the app for plugin upstreams.
import http from 'node:http'
import https from 'node:https'
import { UpstreamTimeoutError } from './plugin-proxy.ts'
import type { UpstreamAnswer, UpstreamClient } from './plugin-proxy.ts'

/**
 * Plugin upstreams over `node:http`, connections kept alive. Like node-fetch.ts (decision 012), it
 * skips what `fetch` builds for every request (a WHATWG Request, signals, a web stream per body):
 * an answer that is not an event stream is read into one buffer, which the server then writes
 * with its headers in one go; an event stream is handed over as a web stream, paused while the
 * browser is behind, and the upstream request is destroyed when the browser goes away.
 */
export function createNodeUpstreamClient(): UpstreamClient {
  const agents: Record<string, http.Agent> = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  }
  return (upstream, timeoutMs) =>
    new Promise<UpstreamAnswer>((resolve, reject) => {
      const { url, body } = upstream
      const agent = agents[url.protocol]
      if (agent === undefined) {
        reject(new TypeError(`cannot reach ${url.protocol} upstreams`))
        return
      }
      const headers: Record<string, string> =
        body === null
          ? upstream.headers
          : { ...upstream.headers, 'content-length': String(body.byteLength) }
      const request = (url.protocol === 'https:' ? https : http).request(url, {
        method: upstream.method,
        headers,
        agent,
      })
      let settled = false
      const fail = (error: Error) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        request.destroy()
        reject(error)
      }
      const timer = setTimeout(() => fail(new UpstreamTimeoutError()), timeoutMs)
      request.once('error', fail)
      request.once('response', (response) => {
        const pairs: Array<readonly [string, string]> = []
        const raw = response.rawHeaders
        for (let index = 0; index < raw.length; index += 2)
          pairs.push([raw[index]!.toLowerCase(), raw[index + 1]!])
        const status = response.statusCode ?? 502
        const answer = (answerBody: UpstreamAnswer['body']) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          resolve({ status, headers: pairs, body: answerBody })
        }
        if (response.headers['content-type']?.startsWith('text/event-stream') === true) {
          answer(streamOf(response))
          return
        }
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.once('end', () => {
          const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
          answer(new Uint8Array(whole.buffer as ArrayBuffer, whole.byteOffset, whole.byteLength))
        })
        response.once('error', fail)
      })
      request.end(body ?? undefined)
    })
}

/** The answer's bytes as a web stream: paused while the reader is behind, ended on a cut. */
function streamOf(response: http.IncomingMessage): ReadableStream<Uint8Array> {
  let open = true
  return new ReadableStream<Uint8Array>({
    start(controller) {
      response.on('data', (chunk: Buffer) => {
        if (!open) return
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        if ((controller.desiredSize ?? 0) <= 0) response.pause()
      })
      response.once('end', () => {
        if (!open) return
        open = false
        controller.close()
      })
      response.once('error', (error) => {
        if (!open) return
        open = false
        controller.error(error)
      })
    },
    pull() {
      response.resume()
    },
    cancel() {
      open = false
      response.destroy()
    },
  })
}
