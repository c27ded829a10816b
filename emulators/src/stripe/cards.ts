// Stripe's test cards, as typed into the hosted checkout and portal pages. Messages are Stripe's
// own, so what a person sees here is what they would see on the real page.
import type { Decline } from './errors.ts'

/** `fail_renewals` is 4000 0000 0000 0341: it attaches, the first payment succeeds, later ones fail. */
export type CardBehaviour = 'succeed' | 'fail_renewals'

interface TestCard {
  brand: string
  behaviour?: CardBehaviour
  decline?: Decline
}

const DECLINED: Decline = {
  code: 'card_declined',
  declineCode: 'generic_decline',
  message: 'Your card was declined.',
}

const TEST_CARDS: Record<string, TestCard> = {
  '4242424242424242': { brand: 'visa', behaviour: 'succeed' },
  '4000056655665556': { brand: 'visa', behaviour: 'succeed' },
  '5555555555554444': { brand: 'mastercard', behaviour: 'succeed' },
  '378282246310005': { brand: 'amex', behaviour: 'succeed' },
  '4000000000000341': { brand: 'visa', behaviour: 'fail_renewals' },
  '4000000000000002': { brand: 'visa', decline: DECLINED },
  '4000000000009995': {
    brand: 'visa',
    decline: {
      code: 'card_declined',
      declineCode: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    },
  },
  '4000000000000069': {
    brand: 'visa',
    decline: { code: 'expired_card', message: 'Your card has expired.' },
  },
  '4000000000000127': {
    brand: 'visa',
    decline: { code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  },
}

/** The decline a card that fails later (0341) gets on the payments after its first one. */
export const RENEWAL_DECLINE = DECLINED

export interface CardInput {
  number: string
  expiry: string
  cvc: string
  name: string
}

export type CardField = 'email' | 'number' | 'expiry' | 'cvc' | 'name'

export interface AcceptedCard {
  ok: true
  brand: string
  last4: string
  expMonth: number
  expYear: number
  fingerprint: string
  behaviour: CardBehaviour
  name: string
}

export interface RejectedCard {
  ok: false
  field: CardField
  message: string
  decline?: Decline
}

function luhnValid(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

function fingerprintOf(digits: string): string {
  // Stable per card number without keeping the number: enough for a stand-in.
  let h = 2166136261
  for (const ch of digits) h = Math.imul(h ^ ch.charCodeAt(0), 16777619)
  return (h >>> 0).toString(36).padStart(8, '0').slice(0, 16)
}

/** Checks a card typed into a form, at emulated time `now` (unix seconds). */
export function checkCard(input: CardInput, now: number): AcceptedCard | RejectedCard {
  const digits = input.number.replace(/[\s-]/g, '')
  if (digits.length === 0 || !/^\d+$/.test(digits) || digits.length < 13) {
    return { ok: false, field: 'number', message: 'Your card number is incomplete.' }
  }
  if (!luhnValid(digits)) {
    return { ok: false, field: 'number', message: 'Your card number is invalid.' }
  }
  const expiry = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(input.expiry)
  if (!expiry) {
    return { ok: false, field: 'expiry', message: "Your card's expiration date is incomplete." }
  }
  const expMonth = Number(expiry[1])
  const rawYear = Number(expiry[2])
  const expYear = rawYear < 100 ? 2000 + rawYear : rawYear
  if (expMonth < 1 || expMonth > 12) {
    return { ok: false, field: 'expiry', message: "Your card's expiration month is invalid." }
  }
  const today = new Date(now * 1000)
  const thisYear = today.getUTCFullYear()
  const thisMonth = today.getUTCMonth() + 1
  if (expYear < thisYear || (expYear === thisYear && expMonth < thisMonth)) {
    return { ok: false, field: 'expiry', message: "Your card's expiration date is in the past." }
  }
  const cvcLength = digits.startsWith('34') || digits.startsWith('37') ? 4 : 3
  if (!new RegExp(`^\\d{${cvcLength}}$`).test(input.cvc.trim())) {
    return { ok: false, field: 'cvc', message: "Your card's security code is incomplete." }
  }
  if (input.name.trim().length === 0) {
    return { ok: false, field: 'name', message: 'Enter the name on your card.' }
  }
  const known = TEST_CARDS[digits]
  if (!known) {
    return {
      ok: false,
      field: 'number',
      message:
        'Your card was declined. Your request was in test mode, but used a non test card. For a list of valid test cards, visit: https://stripe.com/docs/testing.',
      decline: {
        code: 'card_declined',
        declineCode: 'test_mode_live_card',
        message: 'Your card was declined.',
      },
    }
  }
  if (known.decline) {
    return { ok: false, field: 'number', message: known.decline.message, decline: known.decline }
  }
  return {
    ok: true,
    brand: known.brand,
    last4: digits.slice(-4),
    expMonth,
    expYear,
    fingerprint: fingerprintOf(digits),
    behaviour: known.behaviour ?? 'succeed',
    name: input.name.trim(),
  }
}
