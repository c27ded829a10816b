// Customers: created by the API or by a checkout without one; deleting one cancels its subscriptions.
import { invalidRequest, resourceMissing } from '../errors.ts'
import { newCustomer } from '../factories.ts'
import type { Customer, DeletedCustomer } from '../objects.ts'
import type { CustomerCreateParams, CustomerUpdateParams } from '../schemas.ts'
import { customerMatcher } from '../search.ts'
import { applyMetadata, clone, type EngineCore, type Origin } from './core.ts'
import { emit } from './events.ts'
import { previousAttributes } from './previous-attributes.ts'
import { cancelNow } from './subscriptions.ts'

export function requireCustomer(core: EngineCore, id: string, param: string): Customer {
  const customer = core.state.customers[id]
  if (!customer || core.state.deletedCustomers[id]) throw resourceMissing('customer', id, param)
  return customer
}

export function createCustomer(
  core: EngineCore,
  params: CustomerCreateParams,
  origin: Origin,
): Customer {
  const customer = newCustomer({
    created: core.now(),
    description: params.description ?? null,
    email: params.email ?? null,
    metadata: applyMetadata({}, params.metadata),
    name: params.name ?? null,
    phone: params.phone ?? null,
  })
  core.state.customers[customer.id] = customer
  emit(core, 'customer.created', customer, undefined, origin)
  return clone(customer)
}

export function retrieveCustomer(core: EngineCore, id: string): Customer | DeletedCustomer {
  const customer = core.state.customers[id]
  if (!customer) throw resourceMissing('customer', id)
  if (core.state.deletedCustomers[id]) return { id, object: 'customer', deleted: true }
  return clone(customer)
}

export function updateCustomer(
  core: EngineCore,
  id: string,
  params: CustomerUpdateParams,
  origin: Origin,
): Customer {
  const customer = requireCustomer(core, id, 'id')
  const before = clone(customer)
  if (params.description !== undefined) customer.description = params.description
  if (params.email !== undefined) customer.email = params.email
  if (params.name !== undefined) customer.name = params.name
  if (params.phone !== undefined) customer.phone = params.phone
  customer.metadata = applyMetadata(customer.metadata, params.metadata)
  const pm = params.invoice_settings?.default_payment_method
  if (pm !== undefined) {
    if (pm !== null && core.state.paymentMethods[pm]?.customer !== id) {
      throw invalidRequest(
        `No such PaymentMethod: '${pm}'; it is not attached to customer ${id}.`,
        'invoice_settings[default_payment_method]',
        'resource_missing',
      )
    }
    customer.invoice_settings.default_payment_method = pm
  }
  const previous = previousAttributes(before, customer)
  if (Object.keys(previous).length > 0) emit(core, 'customer.updated', customer, previous, origin)
  return clone(customer)
}

export function deleteCustomer(core: EngineCore, id: string, origin: Origin): DeletedCustomer {
  const customer = requireCustomer(core, id, 'id')
  // Deleting a customer cancels their subscriptions at once, as in Stripe.
  for (const sub of Object.values(core.state.subscriptions)) {
    if (sub.customer === id && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
      cancelNow(core, sub, origin, 'cancellation_requested')
    }
  }
  core.state.deletedCustomers[id] = true
  emit(core, 'customer.deleted', customer, undefined, origin)
  return { id, object: 'customer', deleted: true }
}

export function listCustomers(core: EngineCore): Customer[] {
  return Object.values(core.state.customers)
    .filter((c) => !core.state.deletedCustomers[c.id])
    .reverse()
    .map(clone)
}

/** Stripe's search language, for the clauses Tessera might use: `email:'a@b'`, `metadata['k']:'v'`. */
export function searchCustomers(core: EngineCore, query: string): Customer[] {
  return listCustomers(core).filter(customerMatcher(query))
}
