import { describe, expect, it } from 'vitest'
import { EnvError, loadEnv } from '../../platform/env.ts'

const issuesOf = (source: Record<string, string>): string => {
  try {
    loadEnv(source)
  } catch (error) {
    if (error instanceof EnvError) return error.message
    throw error
  }
  return ''
}

describe('the plugin settings', () => {
  it('reads each plugin’s upstream, an origin or a folder', () => {
    const env = loadEnv({
      PLUGIN_UPSTREAMS: 'notes=http://127.0.0.1:9101/, other=https://other.internal/api/',
    })
    expect(env.PLUGIN_UPSTREAMS).toEqual({
      notes: 'http://127.0.0.1:9101',
      other: 'https://other.internal/api',
    })
    expect(env.PLUGIN_TIMEOUT_MS).toBe(10_000)
  })

  it('names every bad entry of PLUGIN_UPSTREAMS', () => {
    const message = issuesOf({
      PLUGIN_UPSTREAMS:
        'notes,Bad=http://x,ftp=ftp://x,creds=http://a:b@x,notes=http://x,notes=http://y',
    })
    expect(message).toMatch(/"notes" must be <plugin name>=<http\(s\) origin>/)
    expect(message).toMatch(/"Bad=http:\/\/x" must be/)
    expect(message).toMatch(/"ftp=ftp:\/\/x": ftp's upstream must be an http\(s\) origin/)
    expect(message).toMatch(/"creds=http:\/\/a:b@x": creds's upstream/)
    expect(message).toMatch(/"notes" is mapped twice/)
  })

  it('asks for the signing key where plugins are mapped outside the local stack', () => {
    expect(
      issuesOf({ PUBLIC_ORIGIN: 'https://app.example.com', PLUGIN_UPSTREAMS: 'notes=http://n' }),
    ).toMatch(/PLUGIN_JWT_PRIVATE_KEY \(must be set/)
    expect(issuesOf({ PUBLIC_ORIGIN: 'https://app.example.com' })).toBe('')
    expect(issuesOf({ PLUGIN_UPSTREAMS: 'notes=http://127.0.0.1:9101' })).toBe('')
  })
})
