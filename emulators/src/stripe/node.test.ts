import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { jsonLogger } from './node.ts'
import { PRO, startStand, waitFor, type Stand } from './test-support.ts'

let dir = ''
const stands: Stand[] = []

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stripe-stand-in-'))
})

afterEach(async () => {
  for (const s of stands.splice(0)) await s.close()
  await rm(dir, { recursive: true, force: true })
})

async function start(options: Parameters<typeof startStand>[0] = {}): Promise<Stand> {
  const s = await startStand({ stateFile: join(dir, 'nested', 'state.json'), ...options })
  stands.push(s)
  return s
}

async function stop(s: Stand): Promise<void> {
  stands.splice(stands.indexOf(s), 1)
  await s.close()
}

describe('startStripeEmulator', () => {
  it('keeps customers, prices and the clock across a restart', async () => {
    const first = await start()
    const customer = await first.stripe.customers.create({ email: 'kept@example.com' })
    const [price] = (await first.stripe.prices.list({ lookup_keys: [PRO] })).data
    first.emulator.control.advanceClock(5 * 86_400)
    const clock = first.emulator.control.now()
    await stop(first)

    const second = await start()
    expect(await second.stripe.customers.retrieve(customer.id)).toMatchObject({
      email: 'kept@example.com',
    })
    const [again] = (await second.stripe.prices.list({ lookup_keys: [PRO] })).data
    expect(again?.id).toBe(price?.id)
    expect(second.emulator.control.now()).toBeGreaterThanOrEqual(clock)
  })

  it('delivers after a restart the events that were still pending', async () => {
    const first = await start()
    first.emulator.control.pauseWebhooks()
    await first.stripe.customers.create({ email: 'pending@example.com' })
    await stop(first)

    const second = await start()
    await waitFor(() => second.delivered('customer.created').length === 1, 'the pending event')
  })

  it('moves a lookup key to a new price when the catalogue changes', async () => {
    const first = await start()
    const [old] = (await first.stripe.prices.list({ lookup_keys: [PRO] })).data
    await stop(first)

    const second = await start({
      seed: [
        {
          lookupKey: PRO,
          productName: 'Tessera Pro',
          unitAmount: 2000,
          currency: 'usd',
          interval: 'month',
        },
      ],
    })
    const [current] = (await second.stripe.prices.list({ lookup_keys: [PRO] })).data
    expect(current?.unit_amount).toBe(2000)
    expect(current?.id).not.toBe(old?.id)
    expect(await second.stripe.prices.retrieve(old?.id ?? '')).toMatchObject({
      active: false,
      lookup_key: null,
    })
  })

  it('starts empty, and says why, when the state file is unreadable', async () => {
    const file = join(dir, 'nested', 'state.json')
    await start()
    await stop(stands[0] as Stand)
    await writeFile(file, '{"version": 99}')
    const lines: string[] = []
    const s = await start({
      log: (level, msg, fields) => lines.push(`${level} ${msg} ${JSON.stringify(fields)}`),
    })
    expect((await s.stripe.customers.list()).data).toEqual([])
    expect(lines.some((l) => l.startsWith('warn ignoring saved Stripe stand-in state'))).toBe(true)
    await stop(s)
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ version: 1 })
  })
})

describe('jsonLogger', () => {
  it('writes one JSON line per message at or above its level', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    try {
      const log = jsonLogger('warn')
      log('info', 'quiet')
      log('error', 'loud', { eventId: 'evt_1' })
      jsonLogger('silent')('error', 'never')
      expect(write.mock.calls.map((call) => String(call[0]))).toEqual([
        `${JSON.stringify({ level: 'error', msg: 'loud', service: 'stripe', eventId: 'evt_1' })}\n`,
      ])
    } finally {
      write.mockRestore()
    }
  })
})
