// What `expand[]` needs from the engine: any object by id, and the lists Stripe can include.
import { clone, type EngineCore } from './core.ts'
import { checkoutLineItems } from './checkout.ts'
import { liveSubscriptions } from './subscriptions.ts'

/** Any object by id, for `expand[]`. */
export function findById(core: EngineCore, id: string): unknown {
  const prefix = id.slice(0, id.indexOf('_'))
  const stores: Record<string, Record<string, unknown>> = {
    cus: core.state.customers,
    price: core.state.prices,
    prod: core.state.products,
    sub: core.state.subscriptions,
    in: core.state.invoices,
    pm: core.state.paymentMethods,
    cs: core.state.checkoutSessions,
    bps: core.state.portalSessions,
  }
  if (prefix === 'cus' && core.state.deletedCustomers[id])
    return { id, object: 'customer', deleted: true }
  const found = stores[prefix]?.[id]
  return found === undefined ? undefined : clone(found)
}

/** A list that `expand[]` can include in an object (`line_items`, `subscriptions`). */
export function includable(
  core: EngineCore,
  object: Record<string, unknown>,
  field: string,
): unknown {
  if (
    object.object === 'checkout.session' &&
    field === 'line_items' &&
    typeof object.id === 'string'
  ) {
    return checkoutLineItems(core, object.id)
  }
  if (object.object === 'customer' && field === 'subscriptions' && typeof object.id === 'string') {
    const data = liveSubscriptions(core, object.id)
    return {
      object: 'list',
      data,
      has_more: false,
      total_count: data.length,
      url: `/v1/customers/${object.id}/subscriptions`,
    }
  }
  return undefined
}
