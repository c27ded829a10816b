// Payment methods: the cards saved by the hosted checkout and portal pages.
import type { AcceptedCard } from '../cards.ts'
import { resourceMissing } from '../errors.ts'
import { newPaymentMethod } from '../factories.ts'
import type { PaymentMethod } from '../objects.ts'
import { clone, type EngineCore } from './core.ts'

export function retrievePaymentMethod(core: EngineCore, id: string): PaymentMethod {
  const pm = core.state.paymentMethods[id]
  if (!pm) throw resourceMissing('PaymentMethod', id)
  return clone(pm)
}

/** Saves an accepted card for the customer, remembering how its later charges behave. */
export function attachCard(
  core: EngineCore,
  card: AcceptedCard,
  customerId: string,
  email: string | null,
): PaymentMethod {
  const pm = newPaymentMethod(card, customerId, email, core.now())
  core.state.paymentMethods[pm.id] = pm
  core.state.cardBehaviours[pm.id] = card.behaviour
  return pm
}

/** Describes a stored card for people: "Visa ending in 4242". */
export function describePaymentMethod(core: EngineCore, id: string | null): string | null {
  const pm = id ? core.state.paymentMethods[id] : undefined
  if (!pm) return null
  const brand = pm.card.brand.charAt(0).toUpperCase() + pm.card.brand.slice(1)
  return `${brand} ending in ${pm.card.last4}`
}
