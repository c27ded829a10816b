/** The cdn and the BFF for `npm run dev` (restarted by `tsx watch` when server code changes). */
import { readStackConfig, stackOptions } from './lib/stack-config.ts'
import { startStack } from './lib/stack.ts'

const config = readStackConfig()
const devPort = config.DEV_PORT
const stack = await startStack({
  ...stackOptions(config),
  // The dev server's page calls the BFF and loads remotes from the cdn.
  extraOrigins: [`http://localhost:${devPort}`, `http://127.0.0.1:${devPort}`],
  mutableCdn: true,
})
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stack.close().then(() => process.exit(0)))
