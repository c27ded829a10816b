// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '@tessera/contracts/errors'
import { useRoute } from './platform.tsx'
import { apiError, fakeBff, renderRemotePage } from './testing.tsx'
import { useSearchParams } from './use-search.ts'

afterEach(cleanup)

describe('fakeBff', () => {
  it('answers by method and path, records the call and throws catalogue errors', async () => {
    const bff = fakeBff({
      'POST /api/things': (call) => Response.json({ got: call.body }),
      'GET /api/broken': apiError('rate_limited', { retryAfterSeconds: 3 }),
    })
    const answer = await bff.fetch('/api/things?x=1', { method: 'post', body: '{"a":1}' })
    expect(await answer.json()).toEqual({ got: { a: 1 } })
    expect(bff.callsTo('POST /api/things')).toEqual([
      { method: 'POST', path: '/api/things', body: { a: 1 } },
    ])
    const failure = await bff.fetch('/api/broken').catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(ApiError)
    expect((failure as ApiError).details).toEqual({ retryAfterSeconds: 3 })
    await expect(bff.fetch('/api/missing')).rejects.toThrow('no answer for GET /api/missing')
  })
})

function Where() {
  return (
    <p>
      route={useRoute()} next={useSearchParams().get('next') ?? 'none'}
    </p>
  )
}

describe('renderRemotePage', () => {
  it('starts at the route below the remote and follows navigations inside it', async () => {
    const { platform } = renderRemotePage(
      <Where />,
      { name: 'billing' },
      { path: '/billing/plans?next=%2Fx' },
    )
    expect(screen.getByText('route=/plans next=/x')).toBeTruthy()
    platform.navigate('/billing')
    expect(await screen.findByText('route=/ next=none')).toBeTruthy()
    expect(window.location.pathname).toBe('/billing')
  })

  it('counts session refreshes and moves the session to what the refresh finds', async () => {
    const { platform, refreshes } = renderRemotePage(
      <p>page</p>,
      { name: 'auth', wrap: (page) => <main>{page}</main> },
      { path: '/auth/profile', refreshTo: { status: 'signed-out', user: null } },
    )
    expect(screen.getByRole('main').textContent).toBe('page')
    expect((await platform.session.refresh()).status).toBe('signed-out')
    expect(refreshes()).toBe(1)
  })
})
