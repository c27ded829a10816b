// A stack of its own for the deploy journeys. Publishing, promoting, canaries and rollbacks move
// channels that every page load of a stack reads; the other specs run in parallel (2 workers) and
// expect billing, auth and ai at their local builds. So these journeys never touch the shared
// stack: each worker that runs one starts another stack (`startStack`, as `npm start` does, but
// never building: it serves the host and publishes the remotes the shared stack's start built),
// with a fresh database and storage, and removes it afterwards. A fresh registry also lets the
// journeys publish the literal versions they are about (billing 1.1.0) on every run.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test as base } from '@playwright/test'
import { isScratchRemote, remoteFolders } from './remotes.ts'
import { e2eStack } from './stack.ts'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

export interface DeployStack {
  appUrl: string
  cdnUrl: string
  supabaseUrl: string
  /** The auth stand-in's mailbox (sign-up confirmations). */
  mailboxUrl: string
  /** Absolute path of this stack's data (database, cdn files, deploy tokens). */
  dataDir: string
  /** Each remote's deploy token, as the stack wrote them to `<dataDir>/deploy-tokens.json`. */
  tokens: Record<string, string>
  /** The environment the deploy commands need to talk to this stack and its storage. */
  cliEnv: Record<string, string>
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/**
 * What the stack process runs: `npm start` without its build step (so the host is never rebuilt),
 * ended cleanly by SIGTERM. Evaluated by tsx, hence plain JavaScript in a string.
 */
const runStack = `void (async () => {
  const { readStackConfig, stackOptions } = await import('./scripts/lib/stack-config.ts')
  const { startStack } = await import('./scripts/lib/stack.ts')
  const stack = await startStack(stackOptions(readStackConfig()))
  process.once('SIGTERM', () => stack.close().then(() => process.exit(0), () => process.exit(1)))
})()`

/** Polls `url` until it answers 200, failing with the stack's output after `timeoutMs`. */
async function waitUntilUp(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`The deploy stack exited with ${child.exitCode}:\n${output()}`)
    }
    const up = await fetch(url).then(
      (response) => response.ok,
      () => false,
    )
    if (up) return
    if (Date.now() > deadline) throw new Error(`The deploy stack did not start:\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/**
 * Starts a private stack and resolves once its BFF answers; `stop` ends it (SIGTERM to the
 * process group it started) and deletes its data.
 */
export async function startDeployStack(
  workerIndex: number,
): Promise<DeployStack & { stop(): Promise<void> }> {
  const [bff, cdn, supabase, mailbox, stripe, openai] = await Promise.all(
    Array.from({ length: 6 }, () => freePort()),
  )
  const dataDir = path.resolve(
    repoRoot,
    e2eStack.env.TESSERA_DATA_DIR,
    `deploy-${workerIndex}-${process.pid}`,
  )
  await rm(dataDir, { recursive: true, force: true })
  await mkdir(dataDir, { recursive: true })
  const env = {
    ...process.env,
    PORT: String(bff),
    CDN_PORT: String(cdn),
    SUPABASE_PORT: String(supabase),
    MAILBOX_PORT: String(mailbox),
    STRIPE_PORT: String(stripe),
    OPENAI_EMULATOR_PORT: String(openai),
    TESSERA_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The journeys make many deploy calls and error reports from one address.
    DEPLOY_RATE_LIMIT: '100000',
    TELEMETRY_RATE_LIMIT: '100000',
    // A canary is judged after 3 clients instead of 20, so a journey needs only 3 browsers.
    CANARY_MIN_CLIENTS: '3',
    CANARY_ERROR_RATE_THRESHOLD: '0.5',
  }
  const child = spawn(path.join(repoRoot, 'node_modules/.bin/tsx'), ['--eval', runStack], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const appUrl = `http://localhost:${bff}`
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(-child.pid, 'SIGTERM')
      await exited
    }
    await rm(dataDir, { recursive: true, force: true })
  }
  try {
    await waitUntilUp(`${appUrl}/api/health`, child, () => output, 180_000)
    // The stack writes the tokens before it publishes; the snapshot proves the publish is done.
    await expect
      .poll(
        async () => {
          const response = await fetch(`${appUrl}/api/remotes`)
          const body = (await response.json()) as {
            remotes: { name: string }[]
            restricted?: { name: string }[]
          }
          // A remote for operators only (the console) is listed as restricted to a visitor.
          return [...body.remotes, ...(body.restricted ?? [])]
            .map((remote) => remote.name)
            .filter((name) => !isScratchRemote(name))
            .sort()
        },
        { timeout: 60_000 },
      )
      .toEqual(remoteFolders())
    const tokensFile = JSON.parse(
      await readFile(path.join(dataDir, 'deploy-tokens.json'), 'utf8'),
    ) as { tokens: Record<string, string> }
    return {
      appUrl,
      cdnUrl: `http://localhost:${cdn}`,
      supabaseUrl: `http://127.0.0.1:${supabase}`,
      mailboxUrl: `http://127.0.0.1:${mailbox}`,
      dataDir,
      tokens: tokensFile.tokens,
      cliEnv: {
        TESSERA_API_URL: appUrl,
        TESSERA_DATA_DIR: dataDir,
        CDN_PORT: String(cdn),
        SUPABASE_PORT: String(supabase),
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** Specs that deploy: `deployStack` is this worker's private stack, started on first use. */
export const deployTest = base.extend<{ pageErrors: string[] }, { deployStack: DeployStack }>({
  deployStack: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern: none here
    async ({}, use, workerInfo) => {
      const stack = await startDeployStack(workerInfo.workerIndex)
      try {
        await use(stack)
      } finally {
        await stack.stop()
      }
    },
    { scope: 'worker', timeout: 300_000 },
  ],
  pageErrors: async ({ page }, use) => {
    const errors: string[] = []
    page.on('pageerror', (error) => errors.push(error.message))
    await use(errors)
  },
})

export { expect }
