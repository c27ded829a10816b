/**
 * A share of the cluster bench's event streams (its fan-out, cluster-fanout.ts), in a process of
 * its own: 600 streams in the bench's one process made it parse 15,000 events a second on one
 * thread, and what was measured then was partly that thread's queue. Started with the stream URL,
 * the cookie and how many streams to open; talks over the IPC channel:
 *
 * - sends `{ opened: n }` once its streams have all received `connection.opened`;
 * - on `'mark'` starts measuring its event loop's utilisation; on `'report'` sends
 *   `{ report: { arrivals, utilisation } }`: for each stream, each `Fan out <n>` event it received
 *   as `[n, arrival]` (epoch ms, fractional), duplicates included, and the share of the time since
 *   `'mark'` its event loop was busy (near 1: this process, not the BFF, set the pace).
 *
 * A frame is matched with string searches, not parsed as JSON: the marker is all it needs.
 */
import { request as httpRequest } from 'node:http'
import type { ClientRequest } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { EventLoopUtilization } from 'node:perf_hooks'

export type FromStreams =
  | { opened: number }
  | { failed: string }
  | { report: { arrivals: [number, number][][]; utilisation: number } }

const send = (message: FromStreams) => process.send?.(message)

const [url, cookie, countText] = process.argv.slice(2)
const count = Number(countText)
const marker = '"displayName":"Fan out '
const now = () => performance.timeOrigin + performance.now()

const arrivals: [number, number][][] = []
const requests: ClientRequest[] = []

function open(index: number): Promise<void> {
  const received: [number, number][] = []
  arrivals[index] = received
  return new Promise((resolve, reject) => {
    const request = httpRequest(url!, {
      headers: { cookie: cookie!, accept: 'text/event-stream' },
      agent: false,
    })
    requests.push(request)
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`GET /api/events answered ${response.statusCode}`))
        response.resume()
        return
      }
      let buffer = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        const at = now()
        buffer += chunk
        let end = buffer.indexOf('\n\n')
        while (end !== -1) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf('\n\n')
          const start = frame.indexOf(marker)
          if (start !== -1) {
            const digits = frame.slice(
              start + marker.length,
              frame.indexOf('"', start + marker.length),
            )
            received.push([Number(digits), at])
          } else if (frame.includes('"type":"connection.opened"')) resolve()
        }
      })
    })
    request.on('error', reject)
    request.end()
  })
}

try {
  // 50 at a time, as a crowd of tabs would arrive.
  for (let index = 0; index < count; index += 50) {
    const batch: Promise<void>[] = []
    for (let offset = index; offset < Math.min(count, index + 50); offset += 1)
      batch.push(open(offset))
    await Promise.all(batch)
  }
  send({ opened: count })
} catch (error) {
  send({ failed: String(error) })
}

let mark: EventLoopUtilization | undefined
process.on('message', (message) => {
  if (message === 'mark') mark = performance.eventLoopUtilization()
  if (message === 'report') {
    const utilisation = mark === undefined ? 0 : performance.eventLoopUtilization(mark).utilization
    send({ report: { arrivals, utilisation } })
  }
})
process.once('disconnect', () => {
  for (const request of requests) request.destroy()
  process.exit(0)
})
