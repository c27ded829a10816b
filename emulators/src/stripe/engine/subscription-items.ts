// Subscription items on their own (`/v1/subscription_items/:id`): a seat count is the item's
// quantity. An update is the subscription's update of that one item, so prorations, invoices and
// the `customer.subscription.updated` event are the same as through `/v1/subscriptions/:id`.
import { resourceMissing } from '../errors.ts'
import type { Subscription, SubscriptionItem } from '../objects.ts'
import type { SubscriptionItemUpdateParams } from '../schemas.ts'
import { clone, type EngineCore, type Origin } from './core.ts'
import { updateSubscription } from './subscriptions.ts'

function findItem(core: EngineCore, id: string): { sub: Subscription; item: SubscriptionItem } {
  for (const sub of Object.values(core.state.subscriptions)) {
    const item = sub.items.data.find((candidate) => candidate.id === id)
    if (item) return { sub, item }
  }
  throw resourceMissing('subscription_item', id)
}

export function retrieveSubscriptionItem(core: EngineCore, id: string): SubscriptionItem {
  return clone(findItem(core, id).item)
}

export function updateSubscriptionItem(
  core: EngineCore,
  id: string,
  params: SubscriptionItemUpdateParams,
  origin: Origin,
): SubscriptionItem {
  const { sub } = findItem(core, id)
  const updated = updateSubscription(
    core,
    sub.id,
    {
      items: [
        {
          id,
          ...(params.price !== undefined ? { price: params.price } : {}),
          ...(params.quantity !== undefined ? { quantity: params.quantity } : {}),
          ...(params.metadata !== undefined ? { metadata: params.metadata } : {}),
        },
      ],
      ...(params.payment_behavior !== undefined
        ? { payment_behavior: params.payment_behavior }
        : {}),
      ...(params.proration_behavior !== undefined
        ? { proration_behavior: params.proration_behavior }
        : {}),
      ...(params.proration_date !== undefined ? { proration_date: params.proration_date } : {}),
    },
    origin,
  )
  const item = updated.items.data.find((candidate) => candidate.id === id)
  if (!item) throw resourceMissing('subscription_item', id)
  return item
}
