// A cluster of its own for the journeys that run against several BFF replicas: PostgreSQL, the
// stand-ins, 3 BFF processes and HAProxy in front (scripts/lib/cluster.ts), started in a process
// of its own as the deploy stack is (support/deploy-stack.ts), on free ports, never building (the
// shared stack's start built the host and remotes). The specs read HAProxy's view of the replicas
// from its admin socket, steer new requests to chosen replicas through it, kill replicas by their
// process id and have the cluster process start them again (a line on its stdin). What the specs
// do against the cluster (accounts, streams, logs, the database, deploys) is in cluster-api.ts.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { expect, test as base } from '@playwright/test'
import type { ClusterManifest } from '../../scripts/lib/cluster.ts'
import { haproxyCommand, readBackends, type BackendState } from '../../scripts/lib/haproxy.ts'
import { repoRoot } from './deploy-stack.ts'
import { isScratchRemote, remoteFolders } from './remotes.ts'

/** One BFF process of the cluster: its name, port and log stay the same when it restarts. */
export interface ClusterReplica {
  /** Its name in HAProxy: bff1, bff2 … */
  name: string
  port: number
  /** `http://127.0.0.1:<port>`: the replica itself, not HAProxy. */
  url: string
  /** Its stdout and stderr: one JSON object per line (`{level, time, msg, …}`). */
  logFile: string
}

/** The cluster as the specs see it: what `<dataDir>/cluster.json` names, and its controls. */
export interface Cluster {
  appUrl: string
  mailboxUrl: string
  stripeUrl: string
  cdnUrl: string
  openaiUrl: string
  /** The cluster's PostgreSQL server, as its superuser. */
  databaseUrl: string
  statsSocket: string
  /** Absolute path of the cluster's data (cdn files, deploy tokens, replica logs). */
  dataDir: string
  replicas: ClusterReplica[]
  /** The process id of a replica now (it changes on restart); throws if it is not running. */
  pidOf(name: string): number
  /** HAProxy's view of each replica now. */
  backends(): Promise<BackendState[]>
  /** SIGKILL: the replica dies as in a crash, with its connections. */
  killReplica(name: string): void
  /** Starts a killed replica again on its port and waits until HAProxy sends it requests. */
  restartReplica(name: string): Promise<void>
  /**
   * Every replica running and UP in HAProxy, and every remote built here served (each test starts
   * from there).
   */
  ensureAllUp(): Promise<void>
  /**
   * Runs `steps` while HAProxy sends new requests to the listed replicas only (the others in
   * maintenance), then lets every replica take requests again. Open connections stay where
   * they are: a page loaded meanwhile keeps its event stream on one of `names`.
   */
  routeOnlyTo<T>(names: string[], steps: () => Promise<T>): Promise<T>
}

/**
 * The replicas' SIGN_IN_BACKOFF_BASE_SECONDS: how long an account waits after its first failure
 * past the free ones.
 */
export const signInBackoffSeconds = 10

// The assistant's timings are short so a journey can watch a dead replica's hold being swept
// within seconds: answers last at most 12 s, so a hold older than 17 s (12 s and the 4 s
// first-token timeout, and a second) can only be a dead replica's, and every replica looks for
// such holds each second. The shared limits wait for PostgreSQL long enough that a busy machine
// never has a replica count alone, and an account's first back-off lasts longer than any pause
// between the failure that starts it and the refusals a journey expects.
const runCluster = `void (async () => {
  const { startCluster } = await import('./scripts/lib/cluster.ts')
  const cluster = await startCluster({
    replicas: Number(process.env.CLUSTER_REPLICAS),
    port: 0,
    cdnPort: 0,
    dataDir: process.env.CLUSTER_DATA_DIR,
    logLevel: 'info',
    drainTimeoutSeconds: 5,
    replicaEnv: {
      // Every test signs up from one address; the limit itself has its own tests.
      EMAIL_SEND_RATE_LIMIT: '10000',
      ASSISTANT_MAX_ANSWER_SECONDS: '12',
      ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '4000',
      ASSISTANT_ABANDONED_HOLD_SECONDS: '17',
      ASSISTANT_HOLD_SWEEP_SECONDS: '1',
      SHARED_LIMIT_TIMEOUT_MS: '5000',
      SIGN_IN_BACKOFF_BASE_SECONDS: '${signInBackoffSeconds}',
    },
  })
  // Commands from the specs, a line each: "restart <replica>", "publish" (the local builds again).
  let input = ''
  process.stdin.setEncoding('utf8')
  process.stdin.on('data', (chunk) => {
    input += chunk
    let newline
    while ((newline = input.indexOf('\\n')) >= 0) {
      const [command, name] = input.slice(0, newline).trim().split(' ')
      input = input.slice(newline + 1)
      if (command === 'restart' && name) {
        cluster.restart(name).catch((error) => console.error('restart ' + name + ' failed: ' + error))
      }
      if (command === 'publish') {
        cluster.serveRemotesFrom(cluster.cdnUrl).then(
          () => console.log('publish done'),
          (error) => console.log('publish failed: ' + error),
        )
      }
    }
  })
  // The group's SIGTERM arrives twice (tsx passes it on): a second one must not cut the close short.
  let closing = false
  process.on('SIGTERM', () => {
    if (closing) return
    closing = true
    cluster.close().then(() => process.exit(0), () => process.exit(1))
  })
})()`

/** Starts a cluster of `replicas` BFF processes; `stop` ends it (SIGTERM) and deletes its data. */
export async function startCluster(
  replicas: number,
  workerIndex: number,
): Promise<Cluster & { stop(): Promise<void> }> {
  const dataDir = path.resolve(repoRoot, '.tessera', `e2e-cluster-${workerIndex}-${process.pid}`)
  await rm(dataDir, { recursive: true, force: true })
  const child = spawn(path.join(repoRoot, 'node_modules/.bin/tsx'), ['--eval', runCluster], {
    cwd: repoRoot,
    env: {
      ...process.env,
      CLUSTER_REPLICAS: String(replicas),
      CLUSTER_DATA_DIR: dataDir,
      TESSERA_DATA_DIR: dataDir,
    },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(-child.pid, 'SIGTERM')
      await exited
    }
    await rm(dataDir, { recursive: true, force: true })
  }
  const manifestFile = path.join(dataDir, 'cluster.json')
  try {
    // The manifest is written once the remotes are published through HAProxy.
    const deadline = Date.now() + 150_000
    let text = ''
    while (text === '') {
      if (child.exitCode !== null) throw new Error(`The cluster exited:\n${output}`)
      if (Date.now() > deadline) throw new Error(`The cluster did not start:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
      text = await readFile(manifestFile, 'utf8').catch(() => '')
    }
    const manifest = JSON.parse(text) as ClusterManifest
    // The cluster rewrites it whole (a rename) whenever a replica stops or starts.
    const pidNow = (name: string): number | undefined => {
      const current = JSON.parse(readFileSync(manifestFile, 'utf8')) as ClusterManifest
      const replica = current.replicas.find((candidate) => candidate.name === name)
      if (replica === undefined) throw new Error(`The cluster has no replica ${name}`)
      return replica.pid
    }
    const backends = () => readBackends(manifest.statsSocket)
    const setState = (name: string, state: 'maint' | 'ready') =>
      haproxyCommand(manifest.statsSocket, `set server bff/${name} state ${state}`)
    const waitUntilUp = (names: string[]) =>
      expect
        .poll(
          async () =>
            (await backends())
              .filter((state) => names.includes(state.name))
              .map((state) => `${state.name} ${state.status}`),
          { timeout: 60_000, message: `HAProxy sees ${names.join(', ')} UP` },
        )
        .toEqual(names.map((name) => `${name} UP`))
    const names = manifest.replicas.map((replica) => replica.name)
    const republishedFor = new Set<string>()

    const cluster: Cluster = {
      appUrl: manifest.appUrl,
      mailboxUrl: manifest.mailboxUrl,
      stripeUrl: manifest.stripeUrl,
      cdnUrl: manifest.cdnUrl,
      openaiUrl: manifest.openaiUrl,
      databaseUrl: manifest.databaseUrl,
      statsSocket: manifest.statsSocket,
      dataDir,
      replicas: manifest.replicas.map(({ name, port, logFile }) => ({
        name,
        port,
        url: `http://127.0.0.1:${port}`,
        logFile,
      })),
      pidOf(name) {
        const pid = pidNow(name)
        if (pid === undefined || !isRunning(pid)) throw new Error(`Replica ${name} is not running`)
        return pid
      },
      backends,
      killReplica(name) {
        process.kill(cluster.pidOf(name), 'SIGKILL')
      },
      async restartReplica(name) {
        const before = pidNow(name)
        child.stdin?.write(`restart ${name}\n`)
        await expect
          .poll(
            () => {
              const pid = pidNow(name)
              return pid !== undefined && pid !== before
            },
            { timeout: 90_000, message: `replica ${name} starts again\n${output.slice(-2000)}` },
          )
          .toBe(true)
        await waitUntilUp([name])
      },
      async ensureAllUp() {
        for (const name of names) {
          if (pidNow(name) === undefined) await cluster.restartReplica(name)
        }
        // A journey that failed half-way may have left a replica in maintenance.
        for (const name of names) await setState(name, 'ready')
        await waitUntilUp(names)
        // The cluster publishes the builds it finds at start; one being rebuilt then (another
        // run's build step empties dist/ first) was missed: publish again once it is whole.
        const built = remoteFolders().filter(
          (name) =>
            !isScratchRemote(name) &&
            existsSync(path.join(repoRoot, 'remotes', name, 'dist', 'tessera-remote.json')),
        )
        const served = async () => {
          const response = await fetch(`${manifest.appUrl}/api/remotes`)
          const { remotes } = (await response.json()) as { remotes: { name: string }[] }
          return built.filter((name) => !remotes.some((remote) => remote.name === name))
        }
        const missing = (await served()).join(' ')
        if (missing === '' || republishedFor.has(missing)) return
        republishedFor.add(missing)
        // Best effort, once per set of missing builds: a build the BFF refuses (a remote its team
        // is half-way through) stays out, and only a journey that needs it fails.
        const publishes = () => output.match(/^publish (done|failed)/gm)?.length ?? 0
        const before = publishes()
        child.stdin?.write('publish\n')
        await expect
          .poll(publishes, { timeout: 60_000, message: `the cluster publishes again\n${output}` })
          .toBeGreaterThan(before)
      },
      async routeOnlyTo(only, steps) {
        const others = names.filter((name) => !only.includes(name))
        for (const name of others) await setState(name, 'maint')
        try {
          return await steps()
        } finally {
          for (const name of others) await setState(name, 'ready')
          await waitUntilUp(names.filter((name) => pidNow(name) !== undefined))
        }
      },
    }
    return { ...cluster, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
}

/** Specs against a 3-replica cluster: `cluster` is this worker's, started on first use. */
export const clusterTest = base.extend<
  { pageErrors: string[]; allReplicasUp: void },
  { cluster: Cluster }
>({
  cluster: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern: none here
    async ({}, use, workerInfo) => {
      const cluster = await startCluster(3, workerInfo.workerIndex)
      try {
        await use(cluster)
      } finally {
        await cluster.stop()
      }
    },
    { scope: 'worker', timeout: 180_000 },
  ],
  // The worker's cluster outlives each test: one that killed a replica must not leave the next
  // with two.
  allReplicasUp: [
    async ({ cluster }, use) => {
      await cluster.ensureAllUp()
      await use()
    },
    { auto: true, timeout: 120_000 },
  ],
  pageErrors: async ({ page }, use) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await use(errors)
  },
})

export { expect }
