// What the specs do against the cluster (support/cluster.ts): accounts made as the auth pages
// make them, requests to HAProxy or to one replica on its own port, the replicas' logs, live event
// streams, the stand-ins' controls, the LISTEN connection each replica holds in PostgreSQL, and
// the deploy API and `npm run publish`.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { readdir, readFile, readlink } from 'node:fs/promises'
import path from 'node:path'
import { expect } from '@playwright/test'
import type { APIRequestContext, APIResponse, Response as PageResponse } from '@playwright/test'
import { createPostgresJsSql } from '@tessera/db/postgres-js-sql'
import type { Sql } from '@tessera/db/sql'
import { createDeployApi } from '../../scripts/deploy/deploy-api.ts'
import type { DeployApi } from '../../scripts/deploy/deploy-api.ts'
import type { Cluster, ClusterReplica } from './cluster.ts'
import { repoRoot } from './deploy-stack.ts'
import { password, uniqueEmail } from './identity.ts'

/**
 * The headers a state-changing call from the app's own pages carries (JSON, and CSRF: the custom
 * header and Origin), with a session cookie for calls that do not carry one of their own.
 */
export function stateChanging(cluster: Cluster, cookie?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-tessera-csrf': '1',
    origin: cluster.appUrl,
    ...(cookie === undefined ? {} : { cookie }),
  }
}

/** The newest sign-up confirmation link sent to `to` by the cluster's mailbox. */
export async function confirmationLink(
  request: APIRequestContext,
  cluster: Cluster,
  to: string,
): Promise<string> {
  let link: string | undefined
  await expect
    .poll(async () => {
      const response = await request.get(
        `${cluster.mailboxUrl}/api/messages?to=${encodeURIComponent(to)}`,
      )
      const { messages } = (await response.json()) as { messages: { text: string }[] }
      link = messages
        .map((message) => /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(message.text)?.[0])
        .find((found) => found !== undefined)
      return link !== undefined
    })
    .toBe(true)
  return link!
}

/** `name=value` of each Set-Cookie of a response, joined as a Cookie header. */
function cookiesOf(response: APIResponse): string {
  return response
    .headersArray()
    .filter((header) => header.name.toLowerCase() === 'set-cookie')
    .map((header) => header.value.split(';')[0]!.trim())
    .filter((pair) => !pair.endsWith('='))
    .join('; ')
}

/**
 * A confirmed account, signed in through HAProxy with the API calls the auth pages make (sign-up,
 * the mailbox's link, confirm), for journeys that are about something else. `request` keeps the
 * session (a browser context's `request` signs its pages in); `cookie` is the same session for
 * requests to any replica.
 */
export async function clusterAccount(
  request: APIRequestContext,
  cluster: Cluster,
  what: string,
  displayName = 'Grace Hopper',
): Promise<{ email: string; displayName: string; cookie: string; userId: string }> {
  const email = uniqueEmail(what)
  const signUp = await request.post(`${cluster.appUrl}/api/auth/sign-up`, {
    headers: stateChanging(cluster),
    data: { email, password, displayName },
  })
  expect(signUp.status(), await signUp.text()).toBeLessThan(300)
  const link = await confirmationLink(request, cluster, email)
  const confirm = await request.post(`${cluster.appUrl}/api/auth/confirm`, {
    headers: stateChanging(cluster),
    data: { tokenHash: new URL(link).searchParams.get('token_hash'), type: 'signup' },
  })
  expect(confirm.status(), await confirm.text()).toBeLessThan(300)
  const cookie = cookiesOf(confirm)
  expect(cookie).toContain('tessera_session=')
  const me = (await (await fetch(`${cluster.appUrl}/api/me`, { headers: { cookie } })).json()) as {
    user: { id: string } | null
  }
  expect(me.user, 'the confirmed account is signed in').not.toBeNull()
  return { email, displayName, cookie, userId: me.user!.id }
}

/** Calls one of the cluster's stand-ins' `/_emulator` API (JSON, no auth) and returns its answer. */
export async function emulatorControl<T = unknown>(
  baseUrl: string,
  route: string,
  body?: Record<string, unknown>,
): Promise<T> {
  const response = await fetch(`${baseUrl}/_emulator${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const text = await response.text()
  expect(response.ok, `/_emulator${route} answered ${response.status}: ${text}`).toBe(true)
  return JSON.parse(text) as T
}

/** How long each replica's log is now (bytes), to read only what it logs after. */
export function logOffsets(cluster: Cluster): Record<string, number> {
  return Object.fromEntries(
    cluster.replicas.map((replica) => [replica.name, readFileSync(replica.logFile).byteLength]),
  )
}

/** Each replica's log lines from `since` (byte offsets from `logOffsets`), parsed. */
export function logLines(
  cluster: Cluster,
  since: Record<string, number> = {},
): Record<string, Array<Record<string, unknown>>> {
  return Object.fromEntries(
    cluster.replicas.map((replica) => [
      replica.name,
      readFileSync(replica.logFile)
        .subarray(since[replica.name] ?? 0)
        .toString('utf8')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>]
          } catch {
            // The last line may be half written; the next read has it whole.
            return []
          }
        }),
    ]),
  )
}

/** The replica that served a page's response, found by its request id in the replicas' logs. */
export async function servedBy(cluster: Cluster, response: PageResponse): Promise<string> {
  const requestId = (await response.allHeaders())['x-request-id']
  expect(requestId, `a request id on ${response.url()}`).toBeTruthy()
  let served: string | undefined
  // Log lines reach the file once per turn of the replica's event loop.
  await expect
    .poll(
      () => {
        const lines = logLines(cluster)
        served = cluster.replicas
          .map((replica) => replica.name)
          .find((name) => lines[name]?.some((line) => line.requestId === requestId))
        return served
      },
      { message: `a replica logged request ${requestId}` },
    )
    .toBeDefined()
  return served!
}

/** One server-sent event as it came. */
export interface SseMessage {
  event: string
  id: string | undefined
  data: string
}

/** Reads a `text/event-stream` body event by event until it ends or `onEvent` says stop. */
export async function readSse(
  response: Response,
  onEvent: (message: SseMessage) => void,
): Promise<void> {
  if (response.body === null) throw new Error('The event stream has no body')
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let event = 'message'
      let id: string | undefined
      const data: string[] = []
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event = value
        else if (field === 'id') id = value
        else if (field === 'data') data.push(value)
      }
      if (data.length > 0 || event !== 'message') onEvent({ event, id, data: data.join('\n') })
    }
  }
}

/** A `tessera` live event (contracts/src/events.ts) with its SSE id (the outbox position). */
export interface ReceivedEvent {
  sseId: string | undefined
  id: string
  type: string
  data: Record<string, unknown>
}

/** An open `GET /api/events` on one replica: what arrived so far, and how to end it. */
export interface LiveStream {
  events: ReceivedEvent[]
  /** Whether the stream is still open (false once the replica ended it or it broke). */
  open(): boolean
  close(): void
}

/** Opens `/api/events` on `baseUrl` with the session cookie and waits for `connection.opened`. */
export async function openLiveStream(baseUrl: string, cookie: string): Promise<LiveStream> {
  const controller = new AbortController()
  const response = await fetch(`${baseUrl}/api/events`, {
    headers: { cookie, accept: 'text/event-stream' },
    signal: controller.signal,
  })
  expect(response.status).toBe(200)
  const events: ReceivedEvent[] = []
  let open = true
  void readSse(response, (message) => {
    if (message.event !== 'tessera') return
    const event = JSON.parse(message.data) as Omit<ReceivedEvent, 'sseId'>
    events.push({ ...event, sseId: message.id })
  })
    .catch(() => undefined)
    .finally(() => (open = false))
  await expect.poll(() => events.some((event) => event.type === 'connection.opened')).toBe(true)
  return { events, open: () => open, close: () => controller.abort() }
}

/** A connection to the cluster's PostgreSQL server as its superuser (for looking under the hood). */
export function clusterDatabase(cluster: Cluster): Sql {
  return createPostgresJsSql(cluster.databaseUrl, { max: 1 })
}

/** The local TCP ports of a process's sockets connected to `remotePort` (from /proc). */
async function portsConnectedTo(pid: number, remotePort: number): Promise<Set<number>> {
  const inodes = new Set<string>()
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
    if (inode !== undefined) inodes.add(inode)
  }
  const ports = new Set<number>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)
    for (const line of lines) {
      const columns = line.trim().split(/\s+/)
      const [local, remote, inode] = [columns[1], columns[2], columns[9]]
      if (local === undefined || remote === undefined || inode === undefined) continue
      if (!inodes.has(inode)) continue
      if (parseInt(remote.split(':')[1] ?? '', 16) !== remotePort) continue
      ports.add(parseInt(local.split(':')[1] ?? '', 16))
    }
  }
  return ports
}

/** A replica's LISTEN connection as PostgreSQL sees it: the backend's pid, and since when. */
export interface ListenerBackend {
  pid: number
  backendStart: string
}

/**
 * The backends of `replica`'s live-event listener (`application_name` `tessera-listen`, see
 * packages/db/src/postgres-js-sql.ts), found by the replica's own socket ports.
 */
export async function listenerBackends(
  db: Sql,
  cluster: Cluster,
  replica: ClusterReplica,
): Promise<ListenerBackend[]> {
  const serverPort = Number(new URL(cluster.databaseUrl).port)
  const ports = await portsConnectedTo(cluster.pidOf(replica.name), serverPort)
  const { rows } = await db.query<{ pid: number; client_port: number; backend_start: string }>(
    `select pid, client_port, backend_start::text as backend_start from pg_stat_activity
     where application_name = 'tessera-listen'`,
  )
  return rows
    .filter((row) => ports.has(Number(row.client_port)))
    .map((row) => ({ pid: Number(row.pid), backendStart: row.backend_start }))
}

/**
 * The deploy API of the cluster with one remote's token (the cluster's `deploy-tokens.json`),
 * through HAProxy or the replica at `apiUrl`.
 */
export async function clusterDeployApi(
  cluster: Cluster,
  remote: string,
  apiUrl: string = cluster.appUrl,
): Promise<DeployApi> {
  const file = path.join(cluster.dataDir, 'deploy-tokens.json')
  const { tokens } = JSON.parse(await readFile(file, 'utf8')) as { tokens: Record<string, string> }
  const token = tokens[remote]
  if (token === undefined) throw new Error(`The cluster has no deploy token for ${remote}`)
  return createDeployApi({ apiUrl, token })
}

/** Runs `npm run <args>` in the repository against the cluster (its deploy API and storage). */
function npmCommand(
  cluster: Cluster,
  args: readonly string[],
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', ...args], {
      cwd: repoRoot,
      env: {
        ...process.env,
        TESSERA_API_URL: cluster.appUrl,
        TESSERA_DATA_DIR: cluster.dataDir,
        CDN_PORT: new URL(cluster.cdnUrl).port,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code: code ?? 1, output }))
  })
}

/**
 * Publishes the local build of `remote` as a new version with the team's own command
 * (`npm run publish -- --no-build`: uploaded to the cluster's cdn folder, registered through
 * HAProxy), to be promoted or run as a canary. Answers the version.
 */
export async function publishNewVersion(cluster: Cluster, remote: string): Promise<string> {
  // Unique per run, so a worker's second use of the cluster never finds it taken.
  const version = `9.${Math.floor(Date.now() / 1000) % 1_000_000}.${Math.floor(Math.random() * 1_000_000)}`
  const published = await npmCommand(cluster, [
    'publish',
    '-w',
    `remotes/${remote}`,
    '--',
    '--no-build',
    '--version',
    version,
  ])
  expect(published.output).toContain(`${remote} ${version} registered`)
  expect(published.code).toBe(0)
  return version
}
