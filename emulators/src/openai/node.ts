/**
 * The OpenAI stand-in on a Node HTTP server. Run directly (`tsx emulators/src/openai/node.ts`)
 * it reads its env and logs one JSON line when ready; tests call `startOpenAiEmulator({ port: 0 })`.
 */
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { serve } from '@hono/node-server'
import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'
import { createOpenAiEmulator } from './app.ts'
import type { OpenAiEmulatorControl, OpenAiEmulatorOptions } from './app.ts'
import { readOpenAiEmulatorEnv } from './env.ts'

export interface StartOpenAiEmulatorOptions extends Omit<OpenAiEmulatorOptions, 'cutConnection'> {
  /** 0 picks a free port. */
  readonly port?: number
  readonly host?: string
}

export interface RunningOpenAiEmulator {
  /** Origin without a trailing slash; the SDK's baseURL is `${url}/v1`. */
  readonly url: string
  readonly control: OpenAiEmulatorControl
  close(): Promise<void>
}

function isHttpBindings(env: unknown): env is HttpBindings {
  return typeof env === 'object' && env !== null && 'outgoing' in env && 'incoming' in env
}

/**
 * A real socket cut: `destroySoon` lets the bytes already written reach the client, then closes
 * the connection without the final empty chunk, so the client sees a truncated body.
 */
function cutConnection(c: Context): void {
  if (!isHttpBindings(c.env)) throw new Error('cutConnection needs the @hono/node-server bindings')
  c.env.incoming.socket.destroySoon()
}

/** Start the stand-in; resolves once it listens. */
export function startOpenAiEmulator(
  options: StartOpenAiEmulatorOptions = {},
): Promise<RunningOpenAiEmulator> {
  const { port = 8790, host = '127.0.0.1', ...emulatorOptions } = options
  const { app, control } = createOpenAiEmulator({ ...emulatorOptions, cutConnection })
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname: host }, (info: AddressInfo) => {
      server.off('error', reject)
      const hostForUrl = info.family === 'IPv6' ? `[${info.address}]` : info.address
      resolve({
        url: `http://${hostForUrl}:${info.port}`,
        control,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()))
            // Stalled streams never end by themselves; close must not wait for them.
            if ('closeAllConnections' in server) server.closeAllConnections()
          }),
      })
    })
    server.once('error', reject)
  })
}

async function main(): Promise<void> {
  const env = readOpenAiEmulatorEnv()
  const log = (level: 'info' | 'error', msg: string, fields: Record<string, unknown> = {}) => {
    if (
      env.LOG_LEVEL === 'silent' ||
      (level === 'info' && (env.LOG_LEVEL === 'warn' || env.LOG_LEVEL === 'error'))
    )
      return
    process.stdout.write(`${JSON.stringify({ level, msg, ...fields })}\n`)
  }
  const running = await startOpenAiEmulator({
    port: env.OPENAI_EMULATOR_PORT,
    host: env.OPENAI_EMULATOR_HOST,
    tokensPerSecond: env.OPENAI_EMULATOR_TOKENS_PER_SECOND,
    models: env.OPENAI_EMULATOR_MODELS,
    answerSentences: env.OPENAI_EMULATOR_ANSWER_SENTENCES,
    maxConcurrentAnswers: env.OPENAI_EMULATOR_MAX_CONCURRENT_ANSWERS,
    ...(env.OPENAI_EMULATOR_API_KEY === undefined ? {} : { apiKey: env.OPENAI_EMULATOR_API_KEY }),
    onUnexpectedError: (error) =>
      log('error', 'openai stand-in request failed', { error: String(error) }),
  })
  log('info', 'openai stand-in ready', {
    url: running.url,
    baseURL: `${running.url}/v1`,
    models: env.OPENAI_EMULATOR_MODELS,
    tokensPerSecond: env.OPENAI_EMULATOR_TOKENS_PER_SECOND,
  })
  const stop = () => {
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log('error', 'openai stand-in failed to close', { error: String(error) })
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `${JSON.stringify({ level: 'error', msg: 'openai stand-in failed to start', error: String(error) })}\n`,
    )
    process.exit(1)
  })
}
