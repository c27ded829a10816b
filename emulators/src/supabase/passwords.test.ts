import { describe, expect, it } from 'vitest'
import { GoTrueError } from './errors.ts'
import { checkPasswordStrength } from './passwords.ts'

function reasonsFor(
  password: string,
  config = { passwordMinLength: 8, passwordRequiredCharacters: ['abc', '123'] },
) {
  try {
    checkPasswordStrength(password, config)
    return []
  } catch (error) {
    if (!(error instanceof GoTrueError)) throw error
    return (error.extra.weak_password as { reasons: string[] } | undefined)?.reasons ?? [error.code]
  }
}

describe('checkPasswordStrength', () => {
  it('reports each rule a password breaks, as GoTrue does', () => {
    expect(reasonsFor('a1')).toEqual(['length'])
    expect(reasonsFor('aaaaaaaaa')).toEqual(['characters'])
    expect(reasonsFor('zz')).toEqual(['length', 'characters'])
    expect(reasonsFor('abcd1234')).toEqual([])
  })

  it('counts characters, not bytes, for the minimum and refuses more than 72 bytes', () => {
    expect(reasonsFor('ééééé1a', { passwordMinLength: 7, passwordRequiredCharacters: [] })).toEqual(
      [],
    )
    expect(
      reasonsFor('x'.repeat(73), { passwordMinLength: 6, passwordRequiredCharacters: [] }),
    ).toEqual(['validation_failed'])
  })
})
