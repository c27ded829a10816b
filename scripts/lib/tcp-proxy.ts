import { createServer, connect } from 'node:net'
import type { AddressInfo, Server, Socket } from 'node:net'

/**
 * A TCP proxy on loopback for fault injection: it passes bytes to `target` until told to cut the
 * open connections, refuse new ones, stall (hold connections without passing a byte) or add
 * latency to each chunk. Tests put it between the BFF and a service it depends on.
 */
export interface TcpProxy {
  port: number
  url(scheme: string, path?: string): string
  /** Passes traffic again (no refusal, no stall, no added latency). */
  heal(): void
  /** Ends every open connection at once, as a crashed server or a cut cable would. */
  cut(): void
  /** Closes each new connection as soon as it opens (the service is down). */
  refuse(): void
  /** Holds new connections and the bytes of open ones without passing them on. */
  stall(): void
  /** Delays every chunk in both directions by `ms`. */
  slow(ms: number): void
  /** Connections accepted so far. */
  connections(): number
  close(): Promise<void>
}

type Mode = { kind: 'pass'; delayMs: number } | { kind: 'refuse' } | { kind: 'stall' }

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: Mode = { kind: 'pass', delayMs: 0 }
  let accepted = 0
  const open = new Set<Socket>()
  const stalled: Array<() => void> = []

  const pipe = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      const send = () => {
        if (!to.destroyed) to.write(chunk)
      }
      if (mode.kind === 'stall') {
        from.pause()
        stalled.push(() => {
          send()
          from.resume()
        })
      } else if (mode.kind === 'pass' && mode.delayMs > 0) {
        setTimeout(send, mode.delayMs)
      } else {
        send()
      }
    })
    from.on('end', () => to.end())
  }

  const server: Server = createServer((client) => {
    accepted += 1
    open.add(client)
    client.on('close', () => open.delete(client))
    client.on('error', () => client.destroy())
    if (mode.kind === 'refuse') {
      client.destroy()
      return
    }
    const start = () => {
      const upstream = connect(target.port, target.host)
      open.add(upstream)
      upstream.on('close', () => {
        open.delete(upstream)
        client.destroy()
      })
      upstream.on('error', () => upstream.destroy())
      client.on('close', () => upstream.destroy())
      pipe(client, upstream)
      pipe(upstream, client)
    }
    if (mode.kind === 'stall') {
      client.pause()
      stalled.push(() => {
        client.resume()
        start()
      })
    } else {
      start()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port

  return {
    port,
    url: (scheme, path = '') => `${scheme}://127.0.0.1:${port}${path}`,
    heal() {
      mode = { kind: 'pass', delayMs: 0 }
      for (const resume of stalled.splice(0)) resume()
    },
    cut() {
      for (const socket of [...open]) socket.destroy()
    },
    refuse() {
      mode = { kind: 'refuse' }
    },
    stall() {
      mode = { kind: 'stall' }
    },
    slow(ms) {
      mode = { kind: 'pass', delayMs: ms }
    },
    connections: () => accepted,
    close() {
      for (const socket of [...open]) socket.destroy()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
