import { ApiError, registrySnapshotSchema, type RegistrySnapshot } from '@tessera/contracts'
import type { BffClient } from '../lib/platform/bff-client.ts'

/** A boot failure, with the sentence the full-page error shows. */
export class BootError extends Error {
  readonly code: string | null
  constructor(message: string, code: string | null = null) {
    super(message)
    this.name = 'BootError'
    this.code = code
  }
}

/**
 * Fetches the registry snapshot: the first request of every page load. Its shape is checked here,
 * at the edge, so the rest of the host can trust it.
 */
export async function fetchSnapshot(
  client: BffClient,
  timeoutMs = 10_000,
): Promise<RegistrySnapshot> {
  let body: unknown
  try {
    body = await client.remotes({ signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    if (error instanceof ApiError) throw new BootError(error.message, error.code)
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      throw new BootError('The Tessera server did not answer in time.', 'upstream_timeout')
    }
    if (error instanceof SyntaxError)
      throw new BootError('The Tessera server sent an answer we could not read.')
    throw error
  }
  const parsed = registrySnapshotSchema.safeParse(body)
  if (!parsed.success) {
    console.error('The registry snapshot does not match the contract', parsed.error.issues)
    throw new BootError('The Tessera server sent a list of apps we could not read.')
  }
  for (const diagnostic of parsed.data.diagnostics) {
    console.warn(`Registry snapshot: ${diagnostic.remote ?? 'registry'}: ${diagnostic.message}`)
  }
  return parsed.data
}
