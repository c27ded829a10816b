// Serves the Stripe stand-in on a port (12111 by default, stripe-mock's) and optionally keeps its
// state in a JSON file, so customers and subscriptions survive `npm start` restarts.
// Run directly: `tsx emulators/src/stripe/node.ts`.
import { serve, type ServerType } from '@hono/node-server'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { dirname, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import {
  createStripeEmulator,
  type StripeEmulatorControl,
  type StripeEmulatorOptions,
} from './app.ts'
import { parseStripeEnv } from './env.ts'
import type { LogFn } from './webhooks.ts'

export interface StartStripeEmulatorOptions extends Omit<
  StripeEmulatorOptions,
  'initialState' | 'onChange'
> {
  /** 0 picks a free port (tests). */
  port?: number
  host?: string
  /** JSON file the state is loaded from and saved to; no persistence without it. */
  stateFile?: string | null
}

export interface RunningStripeEmulator {
  url: string
  port: number
  control: StripeEmulatorControl
  close(): Promise<void>
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const

/** One JSON object per line on stdout, at or above `level`. */
export function jsonLogger(level: 'debug' | 'info' | 'warn' | 'error' | 'silent'): LogFn {
  if (level === 'silent') return () => undefined
  const threshold = LEVELS.indexOf(level)
  return (lvl, msg, fields) => {
    if (LEVELS.indexOf(lvl) < threshold) return
    process.stdout.write(`${JSON.stringify({ level: lvl, msg, service: 'stripe', ...fields })}\n`)
  }
}

async function readState(file: string, log: LogFn): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    log('warn', 'Stripe stand-in state file is not JSON; starting empty', {
      file,
      error: error instanceof Error ? error.message : String(error),
    })
    return undefined
  }
}

export async function startStripeEmulator(
  options: StartStripeEmulatorOptions = {},
): Promise<RunningStripeEmulator> {
  const { port = 12111, host = '127.0.0.1', stateFile = null, ...rest } = options
  const log = rest.log ?? (() => undefined)
  const initialState = stateFile ? await readState(stateFile, log) : undefined

  // Saves are debounced and chained so two never write the file at once.
  let saveTimer: ReturnType<typeof setTimeout> | null = null
  let saving: Promise<void> = Promise.resolve()
  let control: StripeEmulatorControl | null = null
  // Once closed, a change that lands late (a request still finishing) schedules no more saves:
  // a save after close() returned would write into a folder its owner may be removing.
  let closed = false
  const save = () => {
    if (!stateFile || !control) return saving
    const snapshot = JSON.stringify(control.snapshot())
    saving = saving
      .then(async () => {
        await mkdir(dirname(stateFile), { recursive: true })
        const tmp = `${stateFile}.${process.pid}.tmp`
        await writeFile(tmp, snapshot)
        await rename(tmp, stateFile)
      })
      .catch((error: unknown) => {
        log('error', 'could not save Stripe stand-in state', {
          file: stateFile,
          error: error instanceof Error ? error.message : String(error),
        })
      })
    return saving
  }
  const scheduleSave = () => {
    if (!stateFile || saveTimer || closed) return
    saveTimer = setTimeout(() => {
      saveTimer = null
      void save()
    }, 100)
  }

  const emulator = createStripeEmulator({
    ...rest,
    ...(initialState !== undefined ? { initialState } : {}),
    onChange: scheduleSave,
  })
  control = emulator.control

  const server: ServerType = await new Promise((resolveServer) => {
    const s = serve({ fetch: emulator.app.fetch, port, hostname: host }, () => resolveServer(s))
  })
  const address = server.address() as AddressInfo
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`

  return {
    url,
    port: address.port,
    control: emulator.control,
    close: async () => {
      closed = true
      emulator.control.close()
      if (saveTimer) clearTimeout(saveTimer)
      saveTimer = null
      await save()
      await new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()))
        // Keep-alive connections (the SDK's agent) would otherwise hold close() open.
        if ('closeAllConnections' in server) server.closeAllConnections()
      })
    },
  }
}

async function main(): Promise<void> {
  // The one place this stand-in reads process.env: when it runs on its own.
  const env = parseStripeEnv(process.env)
  const log = jsonLogger(env.LOG_LEVEL)
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
  const running = await startStripeEmulator({
    port: env.STRIPE_PORT,
    host: env.STRIPE_HOST,
    publicUrl: env.STRIPE_PUBLIC_URL ?? null,
    webhookUrl: env.STRIPE_WEBHOOK_URL,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET,
    stateFile: env.STRIPE_STATE_FILE ?? resolve(repoRoot, '.tessera/stripe/state.json'),
    ...(env.STRIPE_WEBHOOK_RETRY_SCHEDULE
      ? { retrySchedule: env.STRIPE_WEBHOOK_RETRY_SCHEDULE }
      : {}),
    log,
  })
  log('info', 'Stripe stand-in listening', { url: running.url, webhookUrl: env.STRIPE_WEBHOOK_URL })
  const stop = () => {
    void running.close().then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  })
}
