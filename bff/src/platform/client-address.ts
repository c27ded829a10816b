// The client's network address, which every per-client limit keys on (sign-in throttle, email
// limit, telemetry, deploy API). Plain TypeScript, no node:net, so env.ts (which parses
// TRUSTED_PROXIES with it) stays Web-standard.

/**
 * A range of addresses (`10.0.0.0/8`, `::1`), IPv4 held as IPv4-mapped IPv6 (`::ffff:0:0/96`), so
 * one comparison covers a peer seen as `1.2.3.4` or as `::ffff:1.2.3.4`.
 */
export interface AddressRange {
  /** The network, 128 bits, host bits cleared. */
  network: bigint
  /** Leading bits that must match, 0–128 (an IPv4 `/8` is 104). */
  prefixLength: number
}

const allOnes = (1n << 128n) - 1n
const ipv4Mapped = 0xffffn << 32n

function parseIpv4(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    // No leading zeros: `010` is octal to some parsers and decimal to others.
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part)) return undefined
    const byte = Number(part)
    if (byte > 255) return undefined
    value = value * 256 + byte
  }
  return value
}

function parseGroups(part: string, last: boolean): number[] | undefined {
  if (part === '') return []
  const items = part.split(':')
  const groups: number[] = []
  for (const [index, item] of items.entries()) {
    if (last && index === items.length - 1 && item.includes('.')) {
      const ipv4 = parseIpv4(item)
      if (ipv4 === undefined) return undefined
      groups.push(Math.floor(ipv4 / 0x10000), ipv4 % 0x10000)
    } else if (/^[0-9a-f]{1,4}$/i.test(item)) {
      groups.push(Number.parseInt(item, 16))
    } else {
      return undefined
    }
  }
  return groups
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const [head = '', tail] = halves
  const first = parseGroups(head, tail === undefined)
  const second = tail === undefined ? [] : parseGroups(tail, true)
  if (first === undefined || second === undefined) return undefined
  const missing = 8 - first.length - second.length
  // Without `::` all eight groups are spelled out; with it, `::` stands for at least one.
  if (tail === undefined ? missing !== 0 : missing < 1) return undefined
  const groups = [
    ...first,
    ...new Array<number>(tail === undefined ? 0 : missing).fill(0),
    ...second,
  ]
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n)
}

/** An address as 128 bits (IPv4 mapped into `::ffff:0:0/96`), or undefined if it is not one. */
export function parseAddress(text: string): bigint | undefined {
  if (text.includes(':')) return parseIpv6(text)
  const ipv4 = parseIpv4(text)
  return ipv4 === undefined ? undefined : ipv4Mapped | BigInt(ipv4)
}

/**
 * The canonical text of an address: dotted quad for IPv4 and IPv4-mapped IPv6, RFC 5952 for IPv6
 * (lowercase, the longest run of zero groups as `::`), so one client has one key however it is
 * spelled.
 */
export function formatAddress(address: bigint): string {
  if (address >> 32n === 0xffffn) {
    const ipv4 = Number(address & 0xffffffffn)
    return [24, 16, 8, 0].map((shift) => (ipv4 >>> shift) & 0xff).join('.')
  }
  const groups = Array.from({ length: 8 }, (_, index) =>
    Number((address >> BigInt((7 - index) * 16)) & 0xffffn),
  )
  let bestStart = -1
  let bestLength = 1
  for (let start = 0; start < 8; start += 1) {
    let length = 0
    while (start + length < 8 && groups[start + length] === 0) length += 1
    if (length > bestLength) {
      bestStart = start
      bestLength = length
    }
  }
  const hex = groups.map((group) => group.toString(16))
  if (bestStart < 0) return hex.join(':')
  const before = hex.slice(0, bestStart).join(':')
  const after = hex.slice(bestStart + bestLength).join(':')
  return `${before}::${after}`
}

function maskOf(prefixLength: number): bigint {
  return allOnes ^ ((1n << BigInt(128 - prefixLength)) - 1n)
}

/** `10.0.0.0/8`, `2001:db8::/32`, or one address (`::1`); undefined if it is neither. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const [addressText = '', lengthText, extra] = text.split('/')
  if (extra !== undefined) return undefined
  const address = parseAddress(addressText)
  if (address === undefined) return undefined
  const isIpv4 = !addressText.includes(':')
  const width = isIpv4 ? 32 : 128
  let length = width
  if (lengthText !== undefined) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(lengthText)) return undefined
    length = Number(lengthText)
    if (length > width) return undefined
  }
  const prefixLength = isIpv4 ? 96 + length : length
  return { network: address & maskOf(prefixLength), prefixLength }
}

/**
 * Parses a comma-separated list of addresses and ranges (`127.0.0.1/32,::1,10.0.0.0/8`); the
 * entries that are neither come back in `invalid`, so a setting can name them.
 */
export function parseAddressRanges(text: string): { ranges: AddressRange[]; invalid: string[] } {
  const ranges: AddressRange[] = []
  const invalid: string[] = []
  for (const entry of text.split(',').map((item) => item.trim())) {
    if (entry === '') continue
    const range = parseAddressRange(entry)
    if (range === undefined) invalid.push(entry)
    else ranges.push(range)
  }
  return { ranges, invalid }
}

function isInRanges(address: bigint, ranges: readonly AddressRange[]): boolean {
  return ranges.some((range) => (address & maskOf(range.prefixLength)) === range.network)
}

/** One hop of X-Forwarded-For: `1.2.3.4`, `2001:db8::1`, `[2001:db8::1]:443` or `1.2.3.4:80`. */
function parseForwardedHop(text: string): bigint | undefined {
  const hop = text.trim()
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop)
  if (bracketed !== null) return parseIpv6(bracketed[1] ?? '')
  const withPort = /^([\d.]+):\d{1,5}$/.exec(hop)
  return parseAddress(withPort === null ? hop : (withPort[1] ?? ''))
}

/**
 * The client's address, for per-client limits. The TCP peer, unless the peer is one of
 * `trustedProxies`: then `X-Forwarded-For` is walked from the right (the hop each proxy appended
 * itself) past the trusted proxies to the first address that is not one. A hop that is not an
 * address ends the walk at the last trusted hop: what lies left of it was written by the client,
 * and a client must not be able to choose its own key. Without trusted proxies the header is
 * never read.
 */
export function resolveClientAddress(input: {
  /** The TCP peer as the runtime reports it (`::ffff:10.0.0.7`, `fe80::1%eth0`). */
  peer: string | undefined
  /** The X-Forwarded-For header (several headers joined with commas), if any. */
  forwardedFor: string | undefined
  trustedProxies: readonly AddressRange[]
}): string | undefined {
  if (input.peer === undefined) return undefined
  // A zone (`%eth0`) names the peer's interface, not another client.
  const peer = parseAddress(input.peer.replace(/%.*$/, ''))
  // Not an IP address (a Unix socket, say): the runtime's name for the peer is the key.
  if (peer === undefined) return input.peer
  let client = peer
  if (input.forwardedFor !== undefined && isInRanges(peer, input.trustedProxies)) {
    const hops = input.forwardedFor.split(',')
    for (let index = hops.length - 1; index >= 0; index -= 1) {
      const hop = parseForwardedHop(hops[index] ?? '')
      if (hop === undefined) break
      client = hop
      if (!isInRanges(hop, input.trustedProxies)) break
    }
  }
  return formatAddress(client)
}
