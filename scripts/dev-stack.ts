/** The cdn and the BFF for `npm run dev` (restarted by `tsx watch` when server code changes). */
import { readStackConfig } from './lib/stack-config.ts'
import { startStack } from './lib/stack.ts'
import { z } from 'zod'

const config = readStackConfig()
const devOrigin = z.url().parse(process.env.DEV_ORIGIN ?? `http://localhost:${config.DEV_PORT}`)
const stack = await startStack({
  bffPort: config.PORT,
  cdnPort: config.CDN_PORT,
  supabasePort: config.SUPABASE_PORT,
  mailboxPort: config.MAILBOX_PORT,
  databaseUrl: config.DATABASE_URL,
  dataDir: config.TESSERA_DATA_DIR,
  logLevel: config.LOG_LEVEL,
  extraOrigins: [devOrigin, devOrigin.replace('localhost', '127.0.0.1')],
  mutableCdn: true,
})
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void stack.close().then(() => process.exit(0)))
