/**
 * `npm start`: builds what is stale, starts the local stack in this process and prints the URL.
 */
import { buildWhatIsNeeded } from './lib/build.ts'
import { readStackConfig, stackOptions } from './lib/stack-config.ts'
import { startStack } from './lib/stack.ts'

const started = performance.now()
const config = readStackConfig()
const built = await buildWhatIsNeeded()
const stack = await startStack(stackOptions(config))
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(
  `\n  Tessera is ready in ${seconds} s${built.length ? ` (built ${built.join(', ')})` : ''}\n` +
    `  open     ${stack.appUrl}\n  mailbox  ${stack.mailboxUrl}\n  stripe   ${stack.stripeUrl}/_emulator/state\n` +
    `  cdn      ${stack.cdnUrl}\n  stop     Ctrl+C\n`,
)

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    stack.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('the stack did not close cleanly:', error)
        process.exit(1)
      },
    )
  })
}
