/**
 * The live event types this remote listens to. Spelled out here rather than imported: the
 * contracts modules that define them build zod schemas at load, which would put zod in the
 * bundle. `live-event-types.test.ts` checks they match the contracts.
 */
export const ENTITLEMENTS_EVENT = 'entitlements'
export const SUBSCRIPTION_EVENT = 'billing.subscription'
