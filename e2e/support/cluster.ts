// A cluster of its own for the journey that runs against several BFF replicas: PostgreSQL,
// the stand-ins, 3 BFF processes and HAProxy in front (scripts/lib/cluster.ts), started in a
// process of its own as the deploy stack is (support/deploy-stack.ts), on free ports, never
// building (the shared stack's start built the host and remotes). The spec reads HAProxy's view
// of the replicas from its admin socket and kills replicas by their process id.
import { spawn } from 'node:child_process'
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { expect, test as base, type APIRequestContext } from '@playwright/test'
import { readBackends, type BackendState } from '../../scripts/lib/haproxy.ts'
import { repoRoot } from './deploy-stack.ts'

/** What scripts/lib/cluster.ts writes to `<dataDir>/cluster.json`. */
export interface Cluster {
  appUrl: string
  mailboxUrl: string
  statsSocket: string
  replicas: { name: string; port: number; pid: number | undefined; logFile: string }[]
  /** HAProxy's view of each replica now. */
  backends(): Promise<BackendState[]>
  /** SIGKILL: the replica dies as in a crash, with its connections. */
  killReplica(name: string): void
}

const runCluster = `void (async () => {
  const { startCluster } = await import('./scripts/lib/cluster.ts')
  const cluster = await startCluster({
    replicas: Number(process.env.CLUSTER_REPLICAS),
    port: 0,
    cdnPort: 0,
    dataDir: process.env.CLUSTER_DATA_DIR,
    logLevel: 'info',
    drainTimeoutSeconds: 5,
    // Every test signs up from one address; the limit itself has its own tests.
    replicaEnv: { EMAIL_SEND_RATE_LIMIT: '10000' },
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
    stdio: ['ignore', 'pipe', 'pipe'],
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
  try {
    // The manifest is written once the remotes are published through HAProxy.
    const manifestFile = path.join(dataDir, 'cluster.json')
    const deadline = Date.now() + 150_000
    let text = ''
    while (text === '') {
      if (child.exitCode !== null) throw new Error(`The cluster exited:\n${output}`)
      if (Date.now() > deadline) throw new Error(`The cluster did not start:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
      text = await readFile(manifestFile, 'utf8').catch(() => '')
    }
    const cluster = JSON.parse(text) as Omit<Cluster, 'backends' | 'killReplica'>
    return {
      ...cluster,
      backends: () => readBackends(cluster.statsSocket),
      killReplica(name) {
        const pid = cluster.replicas.find((replica) => replica.name === name)?.pid
        if (pid === undefined) throw new Error(`Replica ${name} is not running`)
        process.kill(pid, 'SIGKILL')
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** The newest sign-up confirmation link sent to `to` by the cluster's mailbox. */
export async function confirmationLink(
  request: APIRequestContext,
  mailboxUrl: string,
  to: string,
): Promise<string> {
  let link: string | undefined
  await expect
    .poll(async () => {
      const response = await request.get(`${mailboxUrl}/api/messages?to=${encodeURIComponent(to)}`)
      const { messages } = (await response.json()) as { messages: { text: string }[] }
      link = messages
        .map((message) => /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(message.text)?.[0])
        .find((found) => found !== undefined)
      return link !== undefined
    })
    .toBe(true)
  return link!
}

/** Specs against a 3-replica cluster: `cluster` is this worker's, started on first use. */
export const clusterTest = base.extend<{ pageErrors: string[] }, { cluster: Cluster }>({
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
  pageErrors: async ({ page }, use) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await use(errors)
  },
})

export { expect }
