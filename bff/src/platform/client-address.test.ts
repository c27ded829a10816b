import { describe, expect, it } from 'vitest'
import {
  formatAddress,
  parseAddress,
  parseAddressRanges,
  resolveClientAddress,
} from './client-address.ts'

function trusted(list: string) {
  const { ranges, invalid } = parseAddressRanges(list)
  expect(invalid).toEqual([])
  return ranges
}

const proxies = trusted('127.0.0.1/32,::1,10.0.0.0/8,2001:db8:f::/48')

function clientOf(peer: string | undefined, forwardedFor?: string, trustedProxies = proxies) {
  return resolveClientAddress({ peer, forwardedFor, trustedProxies })
}

describe('resolveClientAddress', () => {
  it('uses the peer and ignores X-Forwarded-For when no proxy is trusted', () => {
    expect(clientOf('203.0.113.9', '198.51.100.1', [])).toBe('203.0.113.9')
    expect(clientOf('10.0.0.2', '198.51.100.1', [])).toBe('10.0.0.2')
  })

  it('ignores a spoofed X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientOf('203.0.113.9', '127.0.0.1, 198.51.100.1')).toBe('203.0.113.9')
  })

  it('reads the client from X-Forwarded-For when the peer is a trusted proxy', () => {
    expect(clientOf('10.1.2.3', '198.51.100.1')).toBe('198.51.100.1')
    expect(clientOf('127.0.0.1', '198.51.100.1')).toBe('198.51.100.1')
  })

  it('takes the rightmost hop that is not a trusted proxy, so a client cannot prepend its own', () => {
    // The client sent "1.1.1.1"; the edge proxy appended the real peer, the inner one the edge.
    expect(clientOf('10.0.0.5', '1.1.1.1, 198.51.100.7, 10.0.0.4')).toBe('198.51.100.7')
    // Several headers arrive joined with commas.
    expect(clientOf('10.0.0.5', '1.1.1.1,198.51.100.7,  10.0.0.4,10.9.9.9')).toBe('198.51.100.7')
  })

  it('uses the leftmost hop when every hop is a trusted proxy', () => {
    expect(clientOf('10.0.0.5', '10.0.0.3, 10.0.0.4')).toBe('10.0.0.3')
  })

  it('uses the peer when a trusted proxy sends no or an empty X-Forwarded-For', () => {
    expect(clientOf('10.0.0.5')).toBe('10.0.0.5')
    expect(clientOf('10.0.0.5', '')).toBe('10.0.0.5')
  })

  it('stops at a malformed hop, at the last trusted hop, rather than read what the client wrote', () => {
    expect(clientOf('10.0.0.5', '198.51.100.7, not-an-address')).toBe('10.0.0.5')
    expect(clientOf('10.0.0.5', '198.51.100.7, garbage, 10.0.0.4')).toBe('10.0.0.4')
    expect(clientOf('10.0.0.5', '198.51.100.7, , 10.0.0.4')).toBe('10.0.0.4')
    expect(clientOf('10.0.0.5', '1.2.3.256')).toBe('10.0.0.5')
    expect(clientOf('10.0.0.5', '01.2.3.4')).toBe('10.0.0.5')
    expect(clientOf('10.0.0.5', 'unknown')).toBe('10.0.0.5')
  })

  it('accepts hops with ports and bracketed IPv6', () => {
    expect(clientOf('10.0.0.5', '198.51.100.7:51234')).toBe('198.51.100.7')
    expect(clientOf('10.0.0.5', '[2001:db8::7]:443')).toBe('2001:db8::7')
    expect(clientOf('10.0.0.5', '[2001:db8::7]')).toBe('2001:db8::7')
  })

  it('handles IPv6 peers, proxies and clients, in canonical form', () => {
    expect(clientOf('::1', '2001:DB8:0:0:0:0:0:7')).toBe('2001:db8::7')
    expect(clientOf('2001:db8:f:1::2', '2001:db8:1::9, 2001:db8:f::3')).toBe('2001:db8:1::9')
    expect(clientOf('2001:db8:1::9', '198.51.100.7')).toBe('2001:db8:1::9')
    expect(clientOf('fe80::1%eth0')).toBe('fe80::1')
  })

  it('treats an IPv4-mapped IPv6 peer as the IPv4 address, for trust and for the key', () => {
    expect(clientOf('::ffff:127.0.0.1', '198.51.100.7')).toBe('198.51.100.7')
    expect(clientOf('::ffff:10.2.3.4', '::ffff:198.51.100.7')).toBe('198.51.100.7')
    expect(clientOf('::ffff:203.0.113.9', '198.51.100.7')).toBe('203.0.113.9')
    expect(clientOf('::ffff:203.0.113.9', undefined, [])).toBe('203.0.113.9')
  })

  it('keys a peer that is not an IP address by its name, and no peer by nothing', () => {
    expect(clientOf('/run/bff.sock', '198.51.100.7')).toBe('/run/bff.sock')
    expect(clientOf(undefined, '198.51.100.7')).toBeUndefined()
  })
})

describe('parseAddressRanges', () => {
  it('parses addresses and CIDR ranges of both families, and names the entries that are neither', () => {
    const { ranges, invalid } = parseAddressRanges(
      ' 127.0.0.1/32, ::1 ,10.0.0.0/8,,fd00::/8, 10.0.0.0/33, 300.1.1.1, 10.0.0.0/8/1, ::1/129, host.example, 10.0.0.0/08',
    )
    expect(ranges).toHaveLength(4)
    expect(invalid).toEqual([
      '10.0.0.0/33',
      '300.1.1.1',
      '10.0.0.0/8/1',
      '::1/129',
      'host.example',
      '10.0.0.0/08',
    ])
  })

  it('matches addresses inside a range and not outside it', () => {
    const ranges = trusted('10.0.0.0/8, 2001:db8::/32, 0.0.0.0/0')
    expect(clientOf('10.255.0.1', '1.1.1.1', ranges.slice(0, 1))).toBe('1.1.1.1')
    expect(clientOf('11.0.0.1', '1.1.1.1', ranges.slice(0, 1))).toBe('11.0.0.1')
    expect(clientOf('2001:db8:ffff::1', '1.1.1.1', ranges.slice(1, 2))).toBe('1.1.1.1')
    expect(clientOf('2001:db9::1', '1.1.1.1', ranges.slice(1, 2))).toBe('2001:db9::1')
    // 0.0.0.0/0 is every IPv4 address, and no IPv6 one.
    expect(clientOf('203.0.113.1', '1.1.1.1', ranges.slice(2))).toBe('1.1.1.1')
    expect(clientOf('2001:db9::1', '1.1.1.1', ranges.slice(2))).toBe('2001:db9::1')
  })
})

describe('parseAddress and formatAddress', () => {
  it('round-trips addresses to their canonical spelling', () => {
    const canonical = (text: string) => {
      const address = parseAddress(text)
      return address === undefined ? undefined : formatAddress(address)
    }
    expect(canonical('::')).toBe('::')
    expect(canonical('::1')).toBe('::1')
    expect(canonical('1::')).toBe('1::')
    expect(canonical('2001:db8:0:1:0:0:0:1')).toBe('2001:db8:0:1::1')
    expect(canonical('2001:0:0:1:0:0:1:1')).toBe('2001::1:0:0:1:1')
    expect(canonical('1:2:3:4:5:6:7:8')).toBe('1:2:3:4:5:6:7:8')
    expect(canonical('1:0:3:4:5:6:7:8')).toBe('1:0:3:4:5:6:7:8')
    expect(canonical('::ffff:c000:0280')).toBe('192.0.2.128')
    expect(canonical('64:ff9b::192.0.2.1')).toBe('64:ff9b::c000:201')
    for (const bad of ['1:2:3:4:5:6:7', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', '1.2.3', ':1'])
      expect(canonical(bad)).toBeUndefined()
  })
})
