import { describe, expect, it } from 'vitest'
import { StripeApiError } from './errors.ts'
import { newCustomer } from './factories.ts'
import { customerMatcher } from './search.ts'

const ada = newCustomer({
  created: 0,
  description: null,
  email: 'Ada@Example.com',
  metadata: { user_id: 'u_1' },
  name: 'Ada Lovelace',
  phone: null,
})

describe('customerMatcher', () => {
  it('matches an email exactly, ignoring case', () => {
    expect(customerMatcher("email:'ada@example.com'")(ada)).toBe(true)
    expect(customerMatcher("email:'ada@example.org'")(ada)).toBe(false)
  })

  it('matches a metadata value and a name fragment together', () => {
    expect(customerMatcher("metadata['user_id']:'u_1' AND name~'love'")(ada)).toBe(true)
    expect(customerMatcher("metadata['user_id']:'u_2' AND name~'love'")(ada)).toBe(false)
    expect(customerMatcher("metadata['user_id']:'u_2' OR name~'love'")(ada)).toBe(true)
  })

  it('refuses a clause it does not understand, naming it', () => {
    expect(() => customerMatcher('created>1000')).toThrow(StripeApiError)
    expect(() => customerMatcher('created>1000')).toThrow('created>1000')
  })
})
