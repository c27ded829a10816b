import '@tessera/contracts/zod-messages'
import { setTimeout } from 'node:timers/promises'
import {
  channelChangeSchema,
  errorBodySchema,
  registerVersionResponseSchema,
  remoteDeployStateSchema,
  type ChannelChange,
  type RegisterVersionBody,
  type RegisterVersionResponse,
  type RemoteDeployState,
} from '@tessera/contracts'
import { z } from 'zod/mini'

/** A refusal from the deploy API, carrying its catalogue code and the sentence it gave. */
export class DeployApiError extends Error {
  override name = 'DeployApiError'
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly details: Record<string, unknown> | undefined,
  ) {
    super(message)
  }

  /** The field issues of a `validation_failed` refusal, one sentence each. */
  get issues(): { path: string; message: string }[] {
    const issues = this.details?.issues
    return Array.isArray(issues) ? (issues as { path: string; message: string }[]) : []
  }

  /** Why a `conflict` happened (`revision_changed`, `version_exists`, …). */
  get reason(): string | undefined {
    const reason = this.details?.reason
    return typeof reason === 'string' ? reason : undefined
  }
}

export interface DeployApi {
  state(remote: string): Promise<RemoteDeployState>
  register(body: RegisterVersionBody): Promise<RegisterVersionResponse>
  promote(remote: string, version: string, expectedRevision?: number): Promise<ChannelChange>
  startCanary(
    remote: string,
    version: string,
    percentage: number,
    expectedRevision?: number,
  ): Promise<ChannelChange>
  stopCanary(remote: string, expectedRevision?: number): Promise<ChannelChange>
  rollback(remote: string, expectedRevision?: number): Promise<ChannelChange>
}

const MAX_RATE_LIMIT_RETRIES = 3
// The deploy API counts a minute at a time: no refusal of its own asks for longer.
const MAX_RATE_LIMIT_WAIT_SECONDS = 60

/** The wait a rate-limited refusal names, when it is short enough to wait out. */
function retryAfterSeconds(error: DeployApiError): number | undefined {
  if (error.status !== 429) return undefined
  const wait = error.details?.retryAfterSeconds
  return typeof wait === 'number' && wait >= 0 && wait <= MAX_RATE_LIMIT_WAIT_SECONDS
    ? Math.ceil(wait)
    : undefined
}

/** The deploy API over HTTP, with one team's token. */
export function createDeployApi(options: {
  apiUrl: string
  token: string
  fetch?: typeof fetch
  /** How a refusal's wait is waited out (tests pass one that does not wait). */
  sleep?: (ms: number) => Promise<void>
  /** Where a wait is announced. */
  log?: (line: string) => void
}): DeployApi {
  const doFetch = options.fetch ?? fetch
  const sleep = options.sleep ?? ((ms: number) => setTimeout(ms))
  const log = options.log ?? ((line: string) => console.error(line))
  // A 429 comes from the rate limit, checked before anything is applied: the request is sent
  // again once the wait the API names has passed, a few times and never for long.
  const call = async <T extends z.core.$ZodType>(
    schema: T,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<z.output<T>> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await callOnce(schema, method, path, body)
      } catch (error) {
        const wait = error instanceof DeployApiError ? retryAfterSeconds(error) : undefined
        if (wait === undefined || attempt > MAX_RATE_LIMIT_RETRIES) throw error
        log(`The Tessera API asks to wait ${wait} s (too many requests); sending again then.`)
        await sleep(wait * 1000)
      }
    }
  }
  const callOnce = async <T extends z.core.$ZodType>(
    schema: T,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<z.output<T>> => {
    const url = `${options.apiUrl}/api/deploy${path}`
    let response: Response
    try {
      response = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(120_000),
      })
    } catch (error) {
      throw new Error(
        `The Tessera API at ${options.apiUrl} did not answer (${error instanceof Error ? error.message : String(error)}). Is it running? (npm start, or set TESSERA_API_URL)`,
        { cause: error },
      )
    }
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      throw new Error(
        `The Tessera API answered ${response.status} with something that is not JSON: ${text.slice(0, 200)}`,
      )
    }
    if (!response.ok) {
      const parsed = errorBodySchema.safeParse(json)
      if (!parsed.success) {
        throw new Error(`The Tessera API answered ${response.status}: ${text.slice(0, 200)}`)
      }
      const { code, message, details } = parsed.data.error
      throw new DeployApiError(message, code, response.status, details)
    }
    return z.parse(schema, json)
  }
  const expect = (expectedRevision: number | undefined) =>
    expectedRevision === undefined ? {} : { expectedRevision }
  return {
    state: (remote) => call(remoteDeployStateSchema, 'GET', `/remotes/${remote}`),
    register: (body) =>
      call(
        registerVersionResponseSchema,
        'POST',
        `/remotes/${body.descriptor.name}/versions`,
        body,
      ),
    promote: (remote, version, expectedRevision) =>
      call(channelChangeSchema, 'POST', `/remotes/${remote}/promote`, {
        version,
        ...expect(expectedRevision),
      }),
    startCanary: (remote, version, percentage, expectedRevision) =>
      call(channelChangeSchema, 'POST', `/remotes/${remote}/canary`, {
        version,
        percentage,
        ...expect(expectedRevision),
      }),
    stopCanary: (remote, expectedRevision) =>
      call(channelChangeSchema, 'POST', `/remotes/${remote}/canary/stop`, expect(expectedRevision)),
    rollback: (remote, expectedRevision) =>
      call(channelChangeSchema, 'POST', `/remotes/${remote}/rollback`, expect(expectedRevision)),
  }
}
