/**
 * `npm start`: builds what is stale, starts the local stack in this process and prints the URL.
 * `npm start -- --replicas N` (`npm run start:cluster`: 3) starts the cluster instead: PostgreSQL,
 * N BFF processes and HAProxy in front (scripts/lib/cluster.ts).
 */
import { parseArgs } from 'node:util'
import { buildWhatIsNeeded } from './lib/build.ts'
import { startCluster } from './lib/cluster.ts'
import { readStackConfig, stackOptions } from './lib/stack-config.ts'
import { startStack } from './lib/stack.ts'
import type { RunningStack } from './lib/stack.ts'

const { values } = parseArgs({ options: { replicas: { type: 'string' } } })
const replicas = values.replicas === undefined ? undefined : Number(values.replicas)
if (replicas !== undefined && !(Number.isInteger(replicas) && replicas >= 1 && replicas <= 16)) {
  console.error(`--replicas takes a whole number from 1 to 16, not "${values.replicas}"`)
  process.exit(2)
}

const started = performance.now()
const config = readStackConfig()
const built = await buildWhatIsNeeded()
let stack: RunningStack
let cluster = ''
if (replicas === undefined) {
  stack = await startStack(stackOptions(config))
} else {
  const options = stackOptions(config)
  const running = await startCluster({
    ...options,
    replicas,
    port: options.bffPort,
    // The cluster's database is a PostgreSQL server of its own, kept across runs.
    dataDir: `${config.TESSERA_DATA_DIR}/cluster`,
    keepDatabase: true,
  })
  stack = running
  cluster =
    `  haproxy  ${running.appUrl} → ${running.replicas.map((r) => `${r.name} :${r.port}`).join(', ')}\n` +
    `  stats    ${running.statsSocket} (HAProxy's admin socket: show stat)\n` +
    `  postgres ${running.databaseUrl}\n` +
    `  logs     ${running.replicas[0]?.logFile.replace(/bff1\.log$/, 'bff<n>.log, haproxy.log')}\n`
}
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(
  `\n  Tessera is ready in ${seconds} s${built.length ? ` (built ${built.join(', ')})` : ''}\n` +
    `  open     ${stack.appUrl}\n  mailbox  ${stack.mailboxUrl}\n  stripe   ${stack.stripeUrl}/_emulator/state\n` +
    `  cdn      ${stack.cdnUrl}\n` +
    `  operator ${stack.operator.email} / ${stack.operator.password} → ${stack.operator.signInUrl}\n` +
    `${cluster}  stop     Ctrl+C\n`,
)

// A second signal (tsx passes each one on; an impatient Ctrl+C) must not cut the close short: the
// cluster's replicas and HAProxy run in process groups of their own and would be left running.
let closing = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return
    closing = true
    stack.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('the stack did not close cleanly:', error)
        process.exit(1)
      },
    )
  })
}
