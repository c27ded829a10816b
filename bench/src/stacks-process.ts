/**
 * The two stacks a benchmark compares, run in a process of their own so the servers never wait
 * for the browser driver's event loop (Playwright handles an event for every request the page
 * makes, and the federated page makes more of them). Started by `startStacksProcess`; prints one
 * line `{"benchStacks":{...}}` when both are listening and closes them when its stdin ends.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { freePort, startStack, type RunningStack } from '../../scripts/lib/stack.ts'
import { signInBenchAccount, type SessionCookie } from './bench-account.ts'

/** One stack's page origin, and the session of a signed-in visitor (null: no accounts). */
export interface BenchTarget {
  url: string
  cookie: SessionCookie | null
}

export interface BenchStacks {
  federated: BenchTarget
  monolith: BenchTarget
}

const HANDSHAKE = 'benchStacks'
const cdnEntry = fileURLToPath(new URL('../../emulators/src/cdn/node.ts', import.meta.url))

/** Starts a Node process with the same loader flags (tsx) this one was started with. */
function spawnTsx(file: string, env: NodeJS.ProcessEnv, stdio: 'inherit' | 'pipe'): ChildProcess {
  return spawn(process.execPath, [...process.execArgv, file], {
    env: { ...process.env, ...env },
    stdio: stdio === 'pipe' ? ['pipe', 'pipe', 'inherit'] : 'inherit',
  })
}

/** The origins a cdn on `port` serves from (the stack must accept builds from them). */
const cdnOrigins = (port: number): string[] => [
  `http://localhost:${port}`,
  `http://127.0.0.1:${port}`,
]

/**
 * Serves a stack's published remotes from a cdn process of its own (on `port`, one of the
 * stack's `storageOrigins`) and registers the builds there. In production the CDN is not the
 * BFF's machine; in one process, every cdn response would wait behind the BFF's work (the
 * embedded Postgres answering /api/me, the event stream), a cost only the federated page pays.
 * The stack's own cdn stays up, unused.
 */
async function separateCdn(stack: RunningStack, port: number): Promise<ChildProcess> {
  const url = `http://localhost:${port}`
  const child = spawnTsx(
    cdnEntry,
    {
      CDN_PORT: String(port),
      CDN_ROOT: stack.cdnRoot,
      CDN_ALLOWED_ORIGINS: [stack.appUrl, stack.appUrl.replace('localhost', '127.0.0.1')].join(','),
      LOG_LEVEL: 'warn',
    },
    'inherit',
  )
  const deadline = Date.now() + 30_000
  for (;;) {
    const answered = await fetch(`${url}/`).then(
      () => true,
      () => false,
    )
    if (answered) break
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill()
      throw new Error(`the bench cdn on ${url} did not start`)
    }
    await sleep(50)
  }
  try {
    await stack.serveRemotesFrom(url)
  } catch (error) {
    child.kill()
    throw error
  }
  return child
}

async function serve(): Promise<void> {
  const common = { bffPort: 0, cdnPort: 0, logLevel: 'warn' } as const
  const started: RunningStack[] = []
  const cdns: ChildProcess[] = []
  const closeAll = async (): Promise<void> => {
    for (const cdn of cdns.splice(0)) cdn.kill()
    for (const stack of started.splice(0)) await stack.close()
  }
  try {
    const cdnPorts = [await freePort(), await freePort()] as const
    started.push(
      await startStack({
        ...common,
        dataDir: '.tessera/bench',
        hostDist: 'host/dist',
        storageOrigins: cdnOrigins(cdnPorts[0]),
      }),
      await startStack({
        ...common,
        dataDir: '.tessera/bench-monolith',
        hostDist: 'host/dist-monolith',
        storageOrigins: cdnOrigins(cdnPorts[1]),
      }),
    )
    // Both, so the two stacks stay alike (the monolith fetches nothing from its cdn).
    for (const [i, stack] of started.entries()) cdns.push(await separateCdn(stack, cdnPorts[i]!))
  } catch (error) {
    await closeAll()
    throw error
  }
  const [federated, monolith] = started
  if (!federated || !monolith) throw new Error('the bench stacks did not start')
  // Pages behind sign-in are the common case: each build gets a signed-in visitor (a cookie,
  // nothing cached).
  const stacks: BenchStacks = {
    federated: { url: federated.appUrl, cookie: await signInBenchAccount(federated) },
    monolith: { url: monolith.appUrl, cookie: await signInBenchAccount(monolith) },
  }
  console.log(JSON.stringify({ [HANDSHAKE]: stacks }))
  process.stdin.resume()
  process.stdin.once('end', () => {
    closeAll().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('the bench stacks did not close cleanly:', error)
        process.exit(1)
      },
    )
  })
}

/** Starts the stacks in a child process; `close()` stops it and waits for it to exit. */
export function startStacksProcess(): Promise<BenchStacks & { close(): Promise<void> }> {
  const child = spawnTsx(fileURLToPath(import.meta.url), {}, 'pipe')
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const close = async (): Promise<void> => {
    child.stdin?.end()
    await exited
  }
  return new Promise((resolve, reject) => {
    if (!child.stdout) throw new Error('the bench stacks process has no stdout')
    const lines = createInterface({ input: child.stdout })
    lines.on('line', (line) => {
      if (line.startsWith(`{"${HANDSHAKE}":`)) {
        const parsed = JSON.parse(line) as Record<typeof HANDSHAKE, BenchStacks>
        resolve({ ...parsed[HANDSHAKE], close })
      } else {
        // The stacks' own log lines (warnings and errors only).
        process.stderr.write(`${line}\n`)
      }
    })
    child.once('error', reject)
    void exited.then((code) =>
      reject(new Error(`the bench stacks exited with ${code} before they were ready`)),
    )
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await serve()
