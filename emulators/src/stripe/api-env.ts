// The variables the `/v1` middleware sets for the routes and the idempotency layer.
import '@tessera/contracts/zod-messages'
import type { FormObject } from './form.ts'

export type ApiEnv = {
  Variables: {
    requestId: string
    apiKey: string
    params: FormObject
    rawParams: string
    notReplayable: boolean
  }
}
