// The cluster: Debian's PostgreSQL, the stand-ins once (in this process, as `npm start` runs
// them), N BFF replicas as Node processes of their own and HAProxy in front, rendered from
// deploy/haproxy.cfg. `npm start -- --replicas N`, the cluster journey and `npm run bench --
// cluster` start it; the handle kills, restarts and inspects replicas.
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { createDeployTokens } from '@tessera/bff/modules/deploy/tokens'
import { systemClock } from '@tessera/bff/platform/clock'
import { haproxyBinary, readBackends, renderHaproxyConfig } from './haproxy.ts'
import type { BackendState } from './haproxy.ts'
import { repoRoot } from './paths.ts'
import { startPostgresServer } from './postgres-server.ts'
import type { PostgresServer } from './postgres-server.ts'
import { freePort, startStack } from './stack.ts'
import type { RunningStack, StackOptions } from './stack.ts'

export interface ClusterOptions extends Omit<
  StackOptions,
  'bffPort' | 'databaseUrl' | 'serveBff' | 'dataDir'
> {
  replicas: number
  /** HAProxy's public port; 0 picks a free one. */
  port: number
  /** The PostgreSQL server's port; 0 (default) picks a free one. */
  postgresPort?: number
  /** Where the cluster keeps its state and logs, relative to the repository root. */
  dataDir: string
  /** Keep the database in `<dataDir>/postgres` across runs (npm start); else a temporary one. */
  keepDatabase?: boolean
  /** More environment for every replica (limits for a test, say); the cluster's wiring wins. */
  replicaEnv?: Record<string, string>
  /** The replicas' DRAIN_TIMEOUT_SECONDS unless the environment sets it. */
  drainTimeoutSeconds?: number
}

/** One BFF process. */
export interface Replica {
  /** Its name in HAProxy: bff1, bff2 … */
  name: string
  port: number
  /** Absent while it is not running. */
  pid: number | undefined
  /** Its stdout and stderr (JSON lines). */
  logFile: string
}

/** What `<dataDir>/cluster.json` holds, for processes that did not start the cluster. */
export interface ClusterManifest {
  appUrl: string
  mailboxUrl: string
  stripeUrl: string
  cdnUrl: string
  openaiUrl: string
  databaseUrl: string
  statsSocket: string
  haproxyPid: number | undefined
  replicas: Replica[]
}

export interface RunningCluster extends RunningStack {
  databaseUrl: string
  statsSocket: string
  replicas: readonly Replica[]
  /** HAProxy's view of each replica (status, responses served). */
  backends(): Promise<BackendState[]>
  /** Waits until HAProxy sees every replica in `status` (or the listed ones only). */
  waitForBackends(status: string, names?: string[], timeoutMs?: number): Promise<BackendState[]>
  /** Signals a replica (SIGKILL by default: a crash) and waits for its process to end. */
  kill(name: string, signal?: NodeJS.Signals): Promise<void>
  /** Starts a stopped replica again on its port and waits until it is ready. */
  restart(name: string): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no output)'
  }
}

/** Polls a replica's readiness route until 200, failing with its log if it exits first. */
async function waitUntilReady(
  replica: Replica,
  child: ChildProcess,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`Replica ${replica.name} exited at start:\n${tail(replica.logFile)}`)
    const ready = await fetch(`http://127.0.0.1:${replica.port}/api/health/ready`).then(
      (response) => response.status === 200,
      () => false,
    )
    if (ready) return
    if (Date.now() > deadline)
      throw new Error(`Replica ${replica.name} was not ready in time:\n${tail(replica.logFile)}`)
    await sleep(100)
  }
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  if (!Number.isInteger(options.replicas) || options.replicas < 1)
    throw new Error(`--replicas must be a whole number of at least 1, not ${options.replicas}`)
  const dataDir = path.resolve(repoRoot, options.dataDir)
  mkdirSync(dataDir, { recursive: true })
  const port = options.port || (await freePort())
  const postgres: PostgresServer = startPostgresServer(options.postgresPort || (await freePort()), {
    ...(options.keepDatabase ? { dir: path.join(dataDir, 'postgres') } : {}),
    maxConnections: 100 + 20 * options.replicas,
  })
  const statsSocket = path.join(dataDir, 'haproxy.sock')
  const replicas: Replica[] = []
  for (let index = 1; index <= options.replicas; index += 1) {
    replicas.push({
      name: `bff${index}`,
      // Picked at launch (a port free a moment earlier may be a stand-in's by then).
      port: 0,
      pid: undefined,
      logFile: path.join(dataDir, `bff${index}.log`),
    })
  }
  const children = new Map<string, ChildProcess>()
  let haproxy: ChildProcess | undefined
  // Children run in process groups of their own (Ctrl-C reaches this process only, which stops
  // them in order); should this process die without stopping them, they go with it.
  const killAll = () => {
    for (const child of [...children.values(), haproxy]) {
      if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL')
    }
  }
  process.once('exit', killAll)
  let replicaEnv: Record<string, string | undefined> = {}
  let stack: RunningStack | undefined

  const writeManifest = () => {
    if (stack === undefined) return
    const manifest: ClusterManifest = {
      appUrl: stack.appUrl,
      mailboxUrl: stack.mailboxUrl,
      stripeUrl: stack.stripeUrl,
      cdnUrl: stack.cdnUrl,
      openaiUrl: stack.openaiUrl,
      databaseUrl: postgres.url,
      statsSocket,
      haproxyPid: haproxy?.pid,
      replicas,
    }
    // Whole or not at all: other processes poll for it.
    const file = path.join(dataDir, 'cluster.json')
    writeFileSync(`${file}.tmp`, JSON.stringify(manifest, null, 2) + '\n')
    renameSync(`${file}.tmp`, file)
  }

  const launch = async (replica: Replica): Promise<void> => {
    const pickPort = replica.port === 0
    for (let attempt = 1; ; attempt += 1) {
      if (pickPort) replica.port = await freePort()
      try {
        await spawnReplica(replica)
        return
      } catch (error) {
        // Another process took the port between freePort() and the replica's listen: pick again.
        const taken = String(error).includes('EADDRINUSE')
        if (!pickPort || !taken || attempt === 3) throw error
      }
    }
  }

  const spawnReplica = async (replica: Replica): Promise<void> => {
    const log = openSync(replica.logFile, 'a')
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'bff/src/bin/node.ts')],
      {
        cwd: repoRoot,
        env: { ...replicaEnv, PORT: String(replica.port) },
        detached: true,
        stdio: ['ignore', log, log],
      },
    )
    closeSync(log)
    children.set(replica.name, child)
    replica.pid = child.pid
    child.once('exit', () => {
      if (children.get(replica.name) === child) replica.pid = undefined
      writeManifest()
    })
    await waitUntilReady(replica, child, 120_000)
    writeManifest()
  }

  const stopReplica = async (replica: Replica, signal: NodeJS.Signals): Promise<void> => {
    const child = children.get(replica.name)
    if (child === undefined) return
    const done = exited(child)
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    await done
    children.delete(replica.name)
  }

  const backends = () => readBackends(statsSocket)
  const waitForBackends = async (
    status: string,
    names: string[] = replicas.map((replica) => replica.name),
    timeoutMs = 30_000,
  ): Promise<BackendState[]> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (haproxy === undefined || haproxy.exitCode !== null)
        throw new Error(`HAProxy is not running:\n${tail(path.join(dataDir, 'haproxy.log'))}`)
      const states = await backends().catch(() => [])
      const wanted = states.filter((state) => names.includes(state.name))
      if (wanted.length === names.length && wanted.every((state) => state.status === status))
        return states
      if (Date.now() > deadline)
        throw new Error(
          `HAProxy did not see ${names.join(', ')} ${status}: ${JSON.stringify(states)}`,
        )
      await sleep(100)
    }
  }

  const stopAll = async () => {
    // Draining first (each finishes its running requests), then the balancer.
    await Promise.all(replicas.map((replica) => stopReplica(replica, 'SIGTERM')))
    if (haproxy !== undefined) {
      const done = exited(haproxy)
      if (haproxy.exitCode === null) haproxy.kill('SIGTERM')
      await done
      haproxy = undefined
    }
  }

  try {
    stack = await startStack({
      ...options,
      bffPort: port,
      databaseUrl: postgres.url,
      dataDir: options.dataDir,
      serveBff: async ({ env, sql }) => {
        replicaEnv = {
          DRAIN_TIMEOUT_SECONDS: String(options.drainTimeoutSeconds ?? 25),
          ...env,
          ...options.replicaEnv,
          DATABASE_URL: postgres.url,
          // Client addresses come from HAProxy's X-Forwarded-For (deploy/haproxy.cfg).
          TRUSTED_PROXIES: '127.0.0.1',
          HOST_NAME: '127.0.0.1',
        }
        try {
          // One at a time: each runs the migrations (serialised by a lock) before it listens.
          for (const replica of replicas) await launch(replica)
          const configFile = path.join(dataDir, 'haproxy.cfg')
          writeFileSync(configFile, renderHaproxyConfig({ port, statsSocket, servers: replicas }))
          rmSync(statsSocket, { force: true })
          const log = openSync(path.join(dataDir, 'haproxy.log'), 'a')
          haproxy = spawn(haproxyBinary(), ['-db', '-f', configFile], {
            detached: true,
            stdio: ['ignore', log, log],
          })
          closeSync(log)
          await waitForBackends('UP')
        } catch (error) {
          await stopAll()
          throw error
        }
        return {
          port,
          deployTokens: createDeployTokens({ sql, clock: systemClock }),
          close: stopAll,
        }
      },
    })
  } catch (error) {
    killAll()
    process.off('exit', killAll)
    postgres.stop()
    throw error
  }
  writeManifest()
  const running = stack
  const byName = (name: string): Replica => {
    const replica = replicas.find((candidate) => candidate.name === name)
    if (replica === undefined) throw new Error(`No replica ${name}`)
    return replica
  }
  return {
    ...running,
    databaseUrl: postgres.url,
    statsSocket,
    replicas,
    backends,
    waitForBackends,
    kill: (name, signal = 'SIGKILL') => stopReplica(byName(name), signal),
    async restart(name) {
      const replica = byName(name)
      await stopReplica(replica, 'SIGTERM')
      await launch(replica)
    },
    async close() {
      await running.close()
      process.off('exit', killAll)
      postgres.stop()
    },
  }
}
