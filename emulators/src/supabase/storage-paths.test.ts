import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StorageError } from './storage-errors.ts'
import { checkBucketId, decodeObjectKey, objectKeyProblem } from './storage-paths.ts'

const safeSegment = fc
  .stringMatching(/^[\w!\-*'() &$@=;:+,?]{1,20}$/)
  .filter((segment) => segment !== '.' && segment !== '..')

describe('object keys', () => {
  it('accepts any relative path of safe segments, such as a remote build file', () => {
    expect(objectKeyProblem('billing/1.1.0/assets/remoteEntry.js')).toBeNull()
    expect(objectKeyProblem('billing/1.1.0/assets/__federation_expose_Plugin-BfM3x.js')).toBeNull()
    fc.assert(
      fc.property(fc.array(safeSegment, { minLength: 1, maxLength: 6 }), (segments) => {
        expect(objectKeyProblem(segments.join('/'))).toBeNull()
      }),
    )
  })

  it('refuses any path with a . or .. segment, wherever it sits', () => {
    fc.assert(
      fc.property(
        fc.array(safeSegment, { maxLength: 4 }),
        fc.constantFrom('.', '..'),
        fc.array(safeSegment, { maxLength: 4 }),
        (before, dots, after) => {
          expect(objectKeyProblem([...before, dots, ...after].join('/'))).toMatch(/\.\./)
        },
      ),
    )
  })

  it('refuses absolute paths, empty segments, backslashes and control characters', () => {
    expect(objectKeyProblem('')).toMatch(/required/)
    expect(objectKeyProblem('/etc/passwd')).toMatch(/relative/)
    expect(objectKeyProblem('a//b')).toMatch(/empty segments/)
    expect(objectKeyProblem('a/')).toMatch(/empty segments/)
    expect(objectKeyProblem('a\\..\\b')).toMatch(/backslash/)
    expect(objectKeyProblem('a\u0001b')).toMatch(/control/)
    expect(objectKeyProblem('a/é.js')).toMatch(/only/)
    expect(objectKeyProblem('x'.repeat(1025))).toMatch(/at most 1024/)
  })

  it('decodes %2F before checking, so an encoded traversal is refused like a literal one', () => {
    expect(decodeObjectKey('billing/1.0.0/a%20b.js')).toBe('billing/1.0.0/a b.js')
    expect(() => decodeObjectKey('..%2F..%2Fsecret')).toThrow(StorageError)
    expect(() => decodeObjectKey('%E0%A4%A')).toThrow(/malformed/)
  })
})

describe('bucket ids', () => {
  it('accepts hosted Storage’s characters and refuses slashes, padding and long ids', () => {
    expect(checkBucketId("remotes (prod) v1.0 & more: it's=ok")).toBe(
      "remotes (prod) v1.0 & more: it's=ok",
    )
    expect(() => checkBucketId('a/b')).toThrow(/no slashes/)
    expect(() => checkBucketId(' a')).toThrow(/spaces/)
    expect(() => checkBucketId('')).toThrow(/1 to 100/)
    expect(() => checkBucketId('b'.repeat(101))).toThrow(/1 to 100/)
  })
})
