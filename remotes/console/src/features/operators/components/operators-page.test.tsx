// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import type { Operator } from '@tessera/contracts/console'
import { apiError, fakeBff, renderConsole } from '../../../testing/render-console.tsx'
import { operatorOf } from '../../../testing/fixtures.ts'
import { OperatorsPage } from './operators-page.tsx'

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

// The signed-in operator of renderConsole is Ada, user u1.
const ada = operatorOf('u1')
const bob = operatorOf('u2', {
  email: 'bob@example.com',
  grantedBy: 'ada@example.com',
  grantedAt: '2026-11-27T10:30:00.000Z',
})

describe('OperatorsPage', () => {
  it('lists each operator with when and by whom the role was granted, the reader marked as you', async () => {
    const bff = fakeBff({ 'GET /api/console/operators': Response.json({ operators: [ada, bob] }) })
    renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    expect(screen.getByRole('heading', { level: 1, name: 'Operators' })).toBeTruthy()
    const table = await screen.findByRole('region', { name: 'Operators' })
    const row = within(table).getByRole('row', { name: /bob@example\.com/ })
    expect(row.textContent).toContain('ada@example.com')
    expect(within(row).getByRole('time').getAttribute('datetime')).toBe(bob.grantedAt)
    expect(within(table).getByRole('rowheader', { name: /ada@example\.com/ }).textContent).toBe(
      'ada@example.com you',
    )
    expect(screen.getByRole('button', { name: 'Revoke bob@example.com' })).toBeTruthy()
    expect(
      screen.getByRole('navigation', { name: 'Console' }).querySelector('[aria-current="page"]')
        ?.textContent,
    ).toBe('Operators')
  })

  it('grants the role by email and lists the new operator', async () => {
    let operators: Operator[] = [ada]
    const bff = fakeBff({
      'GET /api/console/operators': () => Response.json({ operators }),
      'POST /api/console/operators': () => {
        operators = [ada, bob]
        return Response.json({ operator: bob, outcome: 'granted' }, { status: 201 })
      },
    })
    const { platform } = renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    const field = await screen.findByLabelText('Email of the account')
    fireEvent.change(field, { target: { value: ' bob@example.com ' } })
    fireEvent.click(screen.getByRole('button', { name: 'Grant operator role' }))
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Revoke bob@example.com' })).toBeTruthy(),
    )
    expect(bff.callsTo('POST /api/console/operators')[0]?.body).toEqual({
      email: 'bob@example.com',
    })
    expect(platform.notices).toEqual([
      { kind: 'success', message: 'bob@example.com is now an operator.' },
    ])
    expect((field as HTMLInputElement).value).toBe('')
  })

  it('says so when the account is an operator already', async () => {
    const bff = fakeBff({
      'GET /api/console/operators': Response.json({ operators: [ada, bob] }),
      'POST /api/console/operators': Response.json({ operator: bob, outcome: 'already' }),
    })
    const { platform } = renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    fireEvent.change(await screen.findByLabelText('Email of the account'), {
      target: { value: 'bob@example.com' },
    })
    fireEvent.click(screen.getByRole('button', { name: 'Grant operator role' }))
    await waitFor(() =>
      expect(platform.notices).toEqual([
        { kind: 'info', message: 'bob@example.com is an operator already; nothing changed.' },
      ]),
    )
  })

  it('shows the BFF’s sentence when no account has the email, and the field it refused', async () => {
    const bff = fakeBff({
      'GET /api/console/operators': Response.json({ operators: [ada] }),
      'POST /api/console/operators': (call) =>
        (call.body as { email: string }).email === 'x'
          ? apiError('validation_failed', {
              issues: [{ path: 'email', message: 'Enter a valid email address.' }],
            })
          : apiError('not_found'),
    })
    renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    const field = await screen.findByLabelText('Email of the account')
    fireEvent.change(field, { target: { value: 'nobody@example.com' } })
    fireEvent.click(screen.getByRole('button', { name: 'Grant operator role' }))
    expect((await screen.findByRole('alert')).textContent).toContain('Nobody was made an operator.')
    fireEvent.change(field, { target: { value: 'x' } })
    fireEvent.submit(field.closest('form') as HTMLFormElement)
    expect(await screen.findByText('Enter a valid email address.')).toBeTruthy()
    expect(field.getAttribute('aria-invalid')).toBe('true')
  })

  it('revokes another operator only after confirming', async () => {
    let operators: Operator[] = [ada, bob]
    const bff = fakeBff({
      'GET /api/console/operators': () => Response.json({ operators }),
      'POST /api/console/operators/u2/revoke': () => {
        operators = [ada]
        return Response.json({ operator: bob })
      },
    })
    const { platform } = renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke bob@example.com' }))
    const dialog = screen.getByRole('dialog', { name: 'Revoke bob@example.com’s role?' })
    expect(dialog.textContent).toContain('their next request to it is refused')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.callsTo('POST /api/console/operators/u2/revoke')).toHaveLength(0)

    fireEvent.click(screen.getByRole('button', { name: 'Revoke bob@example.com' }))
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Revoke role' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(bff.callsTo('POST /api/console/operators/u2/revoke')).toHaveLength(1)
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Revoke bob@example.com' })).toBeNull(),
    )
    expect(platform.notices).toEqual([
      { kind: 'success', message: 'bob@example.com is no longer an operator.' },
    ])
  })

  it('will not let the only operator revoke themselves, and shows the BFF’s refusal if it comes', async () => {
    const bff = fakeBff({
      'GET /api/console/operators': Response.json({ operators: [ada] }),
    })
    renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke ada@example.com' }))
    const dialog = screen.getByRole('dialog', { name: 'Revoke your own operator role?' })
    expect(within(dialog).getByRole('status').textContent).toBe(
      'You are the only operator. Grant the role to someone else first, then revoke yours.',
    )
    expect(
      (within(dialog).getByRole('button', { name: 'Revoke role' }) as HTMLButtonElement).disabled,
    ).toBe(true)
  })

  it('shows the refusal in the dialog when the BFF says the reader is the last operator', async () => {
    // The page listed two operators, but the other was revoked meanwhile.
    const bff = fakeBff({
      'GET /api/console/operators': Response.json({ operators: [ada, bob] }),
      'POST /api/console/operators/u1/revoke': apiError('conflict', { reason: 'last_operator' }),
    })
    const { platform } = renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke ada@example.com' }))
    const dialog = screen.getByRole('dialog', { name: 'Revoke your own operator role?' })
    expect(dialog.textContent).toContain('You lose the console at once')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke role' }))
    expect((await within(dialog).findByRole('alert')).textContent).toContain(
      'The role was not revoked.',
    )
    expect(platform.navigations).toEqual([])
  })

  it('leaves the console after revoking its own role', async () => {
    const bff = fakeBff({
      'GET /api/console/operators': Response.json({ operators: [ada, bob] }),
      'POST /api/console/operators/u1/revoke': Response.json({ operator: ada }),
    })
    const { platform } = renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke ada@example.com' }))
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Revoke role' }))
    await waitFor(() => expect(platform.navigations).toEqual([{ to: '/', replace: false }]))
    expect(platform.notices).toEqual([
      { kind: 'success', message: 'You are no longer an operator.' },
    ])
  })

  it('stacks the operators as a list on a phone', async () => {
    vi.spyOn(window, 'matchMedia').mockImplementation(
      (query: string) =>
        ({
          matches: query === '(max-width: 560px)',
          media: query,
          addEventListener: () => undefined,
          removeEventListener: () => undefined,
        }) as unknown as MediaQueryList,
    )
    const bff = fakeBff({ 'GET /api/console/operators': Response.json({ operators: [ada, bob] }) })
    renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    const list = await screen.findByRole('list', { name: 'Operators' })
    expect(screen.queryByRole('table')).toBeNull()
    const [, second] = within(list).getAllByRole('listitem')
    expect(second?.textContent).toMatch(/^bob@example\.comGranted.+Byada@example\.comRevoke/)
  })

  it('says what went wrong when the list cannot be read, with a way to try again', async () => {
    const bff = fakeBff({ 'GET /api/console/operators': apiError('forbidden') })
    renderConsole(<OperatorsPage />, { bff, path: '/console/operators' })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('The operators could not be loaded.')
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy()
    expect(screen.queryByLabelText('Email of the account')).toBeNull()
  })
})
