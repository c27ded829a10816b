// The card form both hosted pages show (Checkout's "Pay with card", the portal's "Update card"),
// and reading its fields back from the posted form.
import type { CardField, RejectedCard } from '../cards.ts'
import type { FormObject } from '../form.ts'
import { Safe, h } from './html.ts'

export interface CardFormValues {
  email?: string
  number?: string
  expiry?: string
  cvc?: string
  name?: string
}

function field(
  id: CardField,
  label: string,
  attrs: string,
  value: string | undefined,
  error: RejectedCard | null,
): Safe {
  const invalid = error?.field === id
  return h`<div>
<label for="${id}">${label}</label>
<input id="${id}" name="${id}" ${new Safe(attrs)} value="${value ?? ''}"${
    invalid ? new Safe(' aria-invalid="true" aria-describedby="card-error"') : ''
  } required>
</div>`
}

export function cardFields(
  values: CardFormValues,
  error: RejectedCard | null,
  withEmail: boolean,
): Safe {
  return h`${
    withEmail
      ? field('email', 'Email', 'type="email" autocomplete="email"', values.email, error)
      : ''
  }
${field('number', 'Card number', 'inputmode="numeric" autocomplete="cc-number" placeholder="1234 1234 1234 1234"', values.number, error)}
<div class="row">
${field('expiry', 'Expiry (MM / YY)', 'autocomplete="cc-exp" placeholder="MM / YY"', values.expiry, error)}
${field('cvc', 'CVC', 'inputmode="numeric" autocomplete="cc-csc" placeholder="123"', values.cvc, error)}
</div>
${field('name', 'Name on card', 'autocomplete="cc-name"', values.name, error)}`
}

export const TEST_CARD_HINT = h`<p class="hint">Test cards: 4242 4242 4242 4242 succeeds ·
4000 0000 0000 0002 is declined · 4000 0000 0000 0341 pays now and fails at the next renewal.
Any future expiry, any CVC.</p>`

export function str(form: FormObject, key: string): string {
  const value = form[key]
  return typeof value === 'string' ? value : ''
}
