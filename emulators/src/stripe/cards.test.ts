import { describe, expect, it } from 'vitest'
import { checkCard } from './cards.ts'

const now = Date.UTC(2026, 5, 15) / 1000
const card = (number: string, extra: Partial<{ expiry: string; cvc: string; name: string }> = {}) =>
  checkCard({ number, expiry: '12 / 30', cvc: '123', name: 'Ada', ...extra }, now)

describe('checkCard', () => {
  it('accepts 4242 4242 4242 4242 with spaces as a card that always pays', () => {
    expect(card('4242 4242 4242 4242')).toMatchObject({
      ok: true,
      brand: 'visa',
      last4: '4242',
      behaviour: 'succeed',
    })
  })

  it('accepts 4000 0000 0000 0341 as a card whose later payments fail', () => {
    expect(card('4000000000000341')).toMatchObject({ ok: true, behaviour: 'fail_renewals' })
  })

  it('declines 4000 0000 0000 0002 with Stripe’s message', () => {
    expect(card('4000000000000002')).toMatchObject({
      ok: false,
      message: 'Your card was declined.',
      decline: { code: 'card_declined', declineCode: 'generic_decline' },
    })
  })

  it('refuses a number that fails the Luhn check', () => {
    expect(card('4242424242424241')).toMatchObject({
      ok: false,
      field: 'number',
      message: 'Your card number is invalid.',
    })
  })

  it('refuses a card that expired before the emulated date', () => {
    expect(card('4242424242424242', { expiry: '05/26' })).toMatchObject({
      ok: false,
      field: 'expiry',
    })
    expect(card('4242424242424242', { expiry: '06/26' })).toMatchObject({ ok: true })
  })

  it('asks for a complete security code and a name', () => {
    expect(card('4242424242424242', { cvc: '12' })).toMatchObject({ ok: false, field: 'cvc' })
    expect(card('4242424242424242', { name: ' ' })).toMatchObject({ ok: false, field: 'name' })
  })

  it('declines real card numbers in test mode', () => {
    expect(card('4111111111111111')).toMatchObject({
      ok: false,
      decline: { declineCode: 'test_mode_live_card' },
    })
  })
})
