// @vitest-environment happy-dom
import { cleanup, render, screen } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { createFakePlatform } from '@tessera/remote-build/testing'
import { ErrorAlert } from './error-alert.tsx'
import { PlatformProvider } from './platform.tsx'

afterEach(cleanup)

function renderAlert(node: ReactNode) {
  const platform = createFakePlatform({ remote: { name: 'auth', version: '1.0.0' } })
  return render(<PlatformProvider platform={platform}>{node}</PlatformProvider>)
}

describe('ErrorAlert', () => {
  it('says what went wrong with the next step, the page’s own steps and the code to quote', () => {
    renderAlert(
      <ErrorAlert
        block="form-alert"
        message="Your session has ended."
        link={{ to: '/auth/sign-in', label: 'Sign in again' }}
        code="unauthenticated"
        requestId="req-7"
      >
        <button type="button">Resend</button>
      </ErrorAlert>,
    )
    const alert = screen.getByRole('alert')
    expect(alert.className).toBe('form-alert')
    expect(alert.getAttribute('tabindex')).toBe('-1')
    expect(alert.querySelector('.form-alert__message')?.textContent).toBe('Your session has ended.')
    expect(screen.getByRole('link', { name: 'Sign in again' }).getAttribute('href')).toBe(
      '/auth/sign-in',
    )
    expect(screen.getByRole('button', { name: 'Resend' })).toBeTruthy()
    // The sentence stays a sentence: the code is for scripts, the request id small print.
    expect(alert.textContent).not.toMatch(/Code|unauthenticated/)
    expect(alert.getAttribute('data-code')).toBe('unauthenticated')
    const reference = alert.querySelector('.form-alert__reference')
    expect(reference?.classList.contains('support-reference')).toBe(true)
    expect(reference?.textContent).toMatch(/^Reference req-7 Copy/)
    expect(screen.getByRole('button', { name: 'Copy reference' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Reload the page' })).toBeNull()
  })

  it('offers a reload and leaves out the reference when there is no request id', () => {
    renderAlert(
      <ErrorAlert block="failure" message="This page is out of date." reload code="csrf_failed" />,
    )
    expect(screen.getByRole('button', { name: 'Reload the page' })).toBeTruthy()
    expect(screen.getByRole('alert').querySelector('.support-reference')).toBeNull()
    expect(screen.queryByRole('link')).toBeNull()
  })
})
