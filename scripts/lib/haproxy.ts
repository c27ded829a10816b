// HAProxy from Debian in front of BFF replicas: the repository's config rendered for a cluster,
// and the backends' state read from its admin socket. Node built-ins only, so the end-to-end
// support can import it without the BFF.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import path from 'node:path'
import { repoRoot } from './paths.ts'

/** The config operators start from (docs/operations.md). */
export const haproxyTemplate = path.join(repoRoot, 'deploy/haproxy.cfg')

export function haproxyBinary(): string {
  for (const candidate of ['/usr/sbin/haproxy', '/usr/bin/haproxy']) {
    if (spawnSync(candidate, ['-v']).status === 0) return candidate
  }
  throw new Error('HAProxy is not installed (scripts/ensure-system-deps.sh installs it)')
}

export interface HaproxyServer {
  name: string
  port: number
}

/**
 * deploy/haproxy.cfg with the three things a deployment changes: the public port, the admin
 * socket and one `server` line per replica (in the `bff` backend, after `default-server`).
 */
export function renderHaproxyConfig(options: {
  port: number
  statsSocket: string
  servers: HaproxyServer[]
  template?: string
}): string {
  const template = options.template ?? readFileSync(haproxyTemplate, 'utf8')
  const servers = options.servers.map(
    (server) => `    server ${server.name} 127.0.0.1:${server.port}`,
  )
  const lines: string[] = []
  for (const line of template.split('\n')) {
    if (/^\s+server\s/.test(line)) continue
    if (/^\s+bind\s/.test(line)) lines.push(`    bind 127.0.0.1:${options.port}`)
    else if (/^\s+stats socket\s/.test(line))
      lines.push(line.replace(/stats socket \S+/, `stats socket ${options.statsSocket}`))
    else lines.push(line)
    if (/^\s+default-server\s/.test(line)) lines.push(...servers)
  }
  return lines.join('\n')
}

/** Sends one command to HAProxy's admin socket and returns its answer. */
export function haproxyCommand(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.end(`${command}\n`))
    let answer = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (answer += chunk))
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

/** One replica as HAProxy sees it (`show stat`). */
export interface BackendState {
  name: string
  /** UP, DOWN, MAINT, DRAIN, NOLB, or a transition such as `UP 1/2`. */
  status: string
  /** Requests (HTTP responses) this replica has sent back through HAProxy, health checks apart. */
  responses: number
  /** Connections HAProxy opened to it in total. */
  sessions: number
  /** Connections open to it now (an event stream holds one). */
  current: number
  /** Requests HAProxy sent elsewhere after this replica failed them. */
  redispatched: number
  /** Connection errors and failed responses seen. */
  errors: number
  /** The last health check's result (`L7OK`, `L4CON` refused, `L7STS` a non-2xx status…). */
  check: string
}

/** The `bff` backend's replicas as HAProxy sees them now. */
export async function readBackends(socketPath: string, backend = 'bff'): Promise<BackendState[]> {
  const csv = await haproxyCommand(socketPath, 'show stat')
  const [header, ...rows] = csv.trim().split('\n')
  if (header === undefined || !header.startsWith('# '))
    throw new Error(`HAProxy did not answer show stat: ${csv}`)
  const columns = header.slice(2).split(',')
  const at = (cells: string[], name: string): string => cells[columns.indexOf(name)] ?? ''
  const count = (cells: string[], ...names: string[]): number =>
    names.reduce((sum, name) => sum + (Number(at(cells, name)) || 0), 0)
  return rows
    .map((row) => row.split(','))
    .filter(
      (cells) =>
        at(cells, 'pxname') === backend && !['FRONTEND', 'BACKEND'].includes(at(cells, 'svname')),
    )
    .map((cells) => ({
      name: at(cells, 'svname'),
      status: at(cells, 'status'),
      responses: count(
        cells,
        'hrsp_1xx',
        'hrsp_2xx',
        'hrsp_3xx',
        'hrsp_4xx',
        'hrsp_5xx',
        'hrsp_other',
      ),
      sessions: count(cells, 'stot'),
      current: count(cells, 'scur'),
      redispatched: count(cells, 'wredis'),
      errors: count(cells, 'econ', 'eresp'),
      check: at(cells, 'check_status'),
    }))
}
