import { describe, expect, it } from 'vitest'
import { describeDevice, parseUserAgent } from './device-label.ts'

describe('describeDevice', () => {
  it('names common browsers and systems', () => {
    const cases: [string, string][] = [
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36',
        'Chrome on Windows',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
        'Safari on macOS',
      ],
      [
        'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
        'Firefox on Linux',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36 Edg/141.0.0.0',
        'Edge on Windows',
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Mobile Safari/537.36',
        'Chrome on Android',
      ],
      ['curl/8.5.0', 'curl'],
    ]
    for (const [userAgent, label] of cases) expect(describeDevice(userAgent)).toBe(label)
  })

  it('falls back to "Unknown device"', () => {
    expect(describeDevice(undefined)).toBe('Unknown device')
    expect(describeDevice('  ')).toBe('Unknown device')
    expect(describeDevice('SomethingElse/1.0')).toBe('Unknown device')
  })
})

describe('parseUserAgent', () => {
  it('reads browser and version, system and version where it means something', () => {
    const cases: [string, { browser: string | null; os: string | null }][] = [
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/141.0.7390.37 Safari/537.36',
        { browser: 'Chrome 141', os: 'Linux' },
      ],
      [
        'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
        { browser: 'Firefox 140', os: 'Linux' },
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
        { browser: 'Safari 18.1', os: 'macOS' },
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
        { browser: 'Safari 18.1', os: 'iOS 18.1' },
      ],
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Mobile Safari/537.36',
        { browser: 'Chrome 141', os: 'Android 14' },
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36 Edg/141.0.0.0',
        { browser: 'Edge 141', os: 'Windows' },
      ],
      ['curl/8.5.0', { browser: 'curl 8.5.0', os: null }],
      ['SomethingElse/1.0', { browser: null, os: null }],
    ]
    for (const [userAgent, parts] of cases) expect(parseUserAgent(userAgent)).toMatchObject(parts)
    expect(parseUserAgent(null)).toMatchObject({ browser: null, os: null })
  })

  it('names headless Chromium as Chrome, not by its system alone', () => {
    expect(
      describeDevice(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/141.0.0.0 Safari/537.36',
      ),
    ).toBe('Chrome on Linux')
  })
})
