// Products and prices: seeded from the configured plans, read-only through the API.
import { resourceMissing } from '../errors.ts'
import { newPrice, newProduct } from '../factories.ts'
import type { Price, Product } from '../objects.ts'
import { clone, type EngineCore } from './core.ts'

/** Creates the seeded products and prices that are missing or changed; keeps the rest. */
export function applySeed(core: EngineCore): void {
  const now = core.now()
  for (const seed of core.options.seed) {
    let product = Object.values(core.state.products).find(
      (candidate) => candidate.name === seed.productName && candidate.active,
    )
    if (!product) {
      product = newProduct(seed.productName, now)
      core.state.products[product.id] = product
    }
    const current = Object.values(core.state.prices).find((p) => p.lookup_key === seed.lookupKey)
    const matches =
      current !== undefined &&
      current.product === product.id &&
      current.unit_amount === seed.unitAmount &&
      current.currency === seed.currency &&
      current.recurring.interval === seed.interval
    if (matches) continue
    if (current) {
      // A changed catalogue moves the lookup key to a new price, like `transfer_lookup_key`.
      current.lookup_key = null
      current.active = false
    }
    const price = newPrice({
      created: now,
      currency: seed.currency,
      lookup_key: seed.lookupKey,
      product: product.id,
      unit_amount: seed.unitAmount,
      interval: seed.interval,
    })
    core.state.prices[price.id] = price
    product.default_price = price.id
    product.updated = now
  }
}

export function listProducts(core: EngineCore): Product[] {
  return Object.values(core.state.products).reverse().map(clone)
}

export function retrieveProduct(core: EngineCore, id: string): Product {
  const product = core.state.products[id]
  if (!product) throw resourceMissing('product', id)
  return clone(product)
}

export function listPrices(core: EngineCore): Price[] {
  return Object.values(core.state.prices).reverse().map(clone)
}

export function requirePrice(core: EngineCore, id: string, param: string): Price {
  const price = core.state.prices[id]
  if (!price) throw resourceMissing('price', id, param)
  return price
}

/** Active recurring prices, cheapest first: the plans a portal offers. */
export function plans(core: EngineCore): Price[] {
  return Object.values(core.state.prices)
    .filter((price) => price.active)
    .sort((a, b) => a.unit_amount - b.unit_amount)
    .map(clone)
}

export function productName(core: EngineCore, price: Price): string {
  return core.state.products[price.product]?.name ?? price.product
}

/** "per month", "every 3 months" */
export function describeInterval(price: Price): string {
  const interval = price.recurring.interval
  return price.recurring.interval_count === 1
    ? `per ${interval}`
    : `every ${price.recurring.interval_count} ${interval}s`
}

export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(amount / 100)
}

/** "$15.00 per month" */
export function describePrice(price: Price): string {
  return `${formatAmount(price.unit_amount, price.currency)} ${describeInterval(price)}`
}
