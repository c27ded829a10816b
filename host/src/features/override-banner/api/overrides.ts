import type { BffClient } from '../../../lib/platform/bff-client.ts'
import type { OverrideRequest } from '../override-link.ts'

/** Asks the BFF to load `request.remote` from `request.entryUrl` in this browser (a cookie). */
export async function startOverride(client: BffClient, request: OverrideRequest): Promise<void> {
  // A refusal arrives as an ApiError carrying the BFF's sentence (the platform's fetch throws it).
  await client.startOverride(request)
}

/** Ends this browser's override of one remote. */
export async function stopOverride(client: BffClient, remote: string): Promise<void> {
  await client.stopOverride(remote)
}
