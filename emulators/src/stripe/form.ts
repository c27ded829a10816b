// Stripe's v1 API speaks qs-style form encoding: `line_items[0][price]=…`, `metadata[k]=…`,
// `expand[]=…`. This parses it into nested objects and arrays, the way Stripe's servers do.

export type FormValue = string | FormValue[] | { [key: string]: FormValue }
export type FormObject = { [key: string]: FormValue }

export class FormError extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message)
  }
}

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype'])

function decode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '))
  } catch {
    // A malformed percent escape is a client error, reported with the raw text it came in.
    throw new FormError(`Invalid URL encoding in request: ${part}`, part)
  }
}

/** Splits `a[b][0][]` into `['a', 'b', '0', '']`. */
export function splitKey(key: string): string[] {
  const open = key.indexOf('[')
  if (open <= 0) return [key]
  const segments = [key.slice(0, open)]
  let rest = key.slice(open)
  while (rest.length > 0) {
    const match = /^\[([^\]]*)\]/.exec(rest)
    if (!match) throw new FormError(`Invalid parameter name: ${key}`, key)
    segments.push(match[1] ?? '')
    rest = rest.slice(match[0].length)
  }
  return segments
}

/** Renders a path the way Stripe names parameters in errors: `line_items[0][price]`. */
export function formatParam(path: readonly (string | number)[]): string {
  const [head, ...rest] = path
  if (head === undefined) return ''
  return String(head) + rest.map((s) => `[${String(s)}]`).join('')
}

type Tree = { [key: string]: Tree | string }

function isTree(value: Tree | string | undefined): value is Tree {
  return typeof value === 'object'
}

function toFormValue(node: Tree | string): FormValue {
  if (typeof node === 'string') return node
  const keys = Object.keys(node)
  // An object whose keys are all indices came from `a[0]=…&a[1]=…` or `a[]=…`: it is an array.
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return keys
      .map(Number)
      .sort((a, b) => a - b)
      .map((i) => toFormValue(node[String(i)] as Tree | string))
  }
  const out: FormObject = {}
  for (const k of keys) out[k] = toFormValue(node[k] as Tree | string)
  return out
}

/** Parses a form-encoded body or query string (without the leading `?`). */
export function parseForm(text: string): FormObject {
  const root: Tree = {}
  if (text.length === 0) return {}
  for (const pair of text.split('&')) {
    if (pair.length === 0) continue
    const eq = pair.indexOf('=')
    const rawKey = eq === -1 ? pair : pair.slice(0, eq)
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1))
    const key = decode(rawKey)
    const segments = splitKey(key)
    let node: Tree = root
    for (let i = 0; i < segments.length; i++) {
      let segment = segments[i] ?? ''
      if (FORBIDDEN_SEGMENTS.has(segment))
        throw new FormError(`Invalid parameter name: ${key}`, key)
      // `a[]` appends: its index is the number of entries already there.
      if (segment === '' && i > 0) segment = String(Object.keys(node).length)
      const last = i === segments.length - 1
      const existing = node[segment]
      if (last) {
        if (isTree(existing)) {
          throw new FormError(
            `Invalid parameter: ${key} is given both a value and nested keys.`,
            key,
          )
        }
        node[segment] = value
      } else {
        if (typeof existing === 'string') {
          throw new FormError(
            `Invalid parameter: ${key} is given both a value and nested keys.`,
            key,
          )
        }
        const child: Tree = existing ?? {}
        node[segment] = child
        node = child
      }
    }
  }
  const out: FormObject = {}
  for (const k of Object.keys(root)) out[k] = toFormValue(root[k] as Tree | string)
  return out
}

/** Encodes nested values the way the stripe SDK does (used by tests and the hosted pages). */
export function stringifyForm(data: Record<string, unknown>): string {
  const pairs: string[] = []
  const encode = (key: string, value: unknown): void => {
    if (value === undefined) return
    if (value === null || typeof value !== 'object') {
      pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value ?? ''))}`)
      return
    }
    if (Array.isArray(value)) {
      value.forEach((v, i) => encode(`${key}[${i}]`, v))
      return
    }
    for (const [k, v] of Object.entries(value)) encode(`${key}[${k}]`, v)
  }
  for (const [k, v] of Object.entries(data)) encode(k, v)
  return pairs.join('&')
}
