// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { fakeBff, renderConsole } from '../../../testing/render-console.tsx'
import { auditEntry } from '../../../testing/fixtures.ts'
import { AuditPage } from './audit-page.tsx'

afterEach(cleanup)

describe('AuditPage', () => {
  it('lists entries with who, from where and before → after, and pages back with nextBefore', async () => {
    const urls: string[] = []
    const first = {
      entries: [
        auditEntry(9),
        auditEntry(8, {
          kind: 'canary_auto_rolled_back',
          actor: 'canary monitor',
          source: 'monitor',
          before: '1.3.0 at 20 %',
          after: null,
        }),
      ],
      nextBefore: 8,
    }
    const older = {
      entries: [auditEntry(7, { kind: 'token_issued', before: null, after: null })],
      nextBefore: null,
    }
    const bff = fakeBff({
      'GET /api/console/audit': () =>
        Response.json(urls.at(-1)?.includes('before=') ? older : first),
    })
    renderConsole(<AuditPage />, {
      path: '/console/audit',
      bff: {
        ...bff,
        fetch: (input: string, init?: RequestInit) => (urls.push(input), bff.fetch(input, init)),
      },
    })
    const table = await screen.findByRole('region', { name: 'Audit log entries, newest first' })
    const rows = within(table).getAllByRole('row').slice(1)
    expect(rows[0]?.textContent).toContain('Promoted')
    expect(rows[0]?.textContent).toContain('ada@example.comOperator (console)')
    expect(rows[0]?.textContent).toMatch(/1\.0\.0\s*→\s*to\s*1\.3\.0/)
    expect(rows[1]?.textContent).toContain('Canary stopped automatically')
    expect(rows[1]?.textContent).toContain('canary monitorCanary monitor')
    expect(rows[1]?.textContent).toMatch(/1\.3\.0 at 20 %\s*→\s*to\s*nothing/)
    fireEvent.click(screen.getByRole('button', { name: 'Load older entries' }))
    expect(await screen.findByText('Token issued')).toBeTruthy()
    expect(urls.at(-1)).toBe('/api/console/audit?before=8')
    expect(within(table).getAllByRole('row')).toHaveLength(4)
    expect(screen.queryByRole('button', { name: 'Load older entries' })).toBeNull()
  })

  it('filters by remote, kind, source and actor, and exports the same filters as CSV', async () => {
    const urls: string[] = []
    const bff = fakeBff({
      'GET /api/console/audit': () => Response.json({ entries: [], nextBefore: null }),
    })
    const { platform } = renderConsole(<AuditPage />, {
      path: '/console/audit',
      bff: {
        ...bff,
        fetch: (input: string, init?: RequestInit) => (urls.push(input), bff.fetch(input, init)),
      },
    })
    expect(await screen.findByText('Nothing has been recorded yet.')).toBeTruthy()
    expect(screen.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe(
      '/api/console/audit?format=csv',
    )
    const form = screen.getByRole('form', { name: 'Filter the audit log' })
    fireEvent.change(within(form).getByLabelText('Remote'), { target: { value: 'billing' } })
    fireEvent.change(within(form).getByLabelText('Kind'), { target: { value: 'promoted' } })
    fireEvent.change(within(form).getByLabelText('Source'), { target: { value: 'operator' } })
    fireEvent.change(within(form).getByLabelText('Actor'), { target: { value: 'ada' } })
    fireEvent.click(within(form).getByRole('button', { name: 'Apply filters' }))
    expect(platform.navigations.at(-1)).toEqual({
      to: '/console/audit?remote=billing&kind=promoted&source=operator&actor=ada',
      replace: true,
    })
    await waitFor(() =>
      expect(urls.at(-1)).toBe(
        '/api/console/audit?remote=billing&kind=promoted&source=operator&actor=ada',
      ),
    )
    expect(
      await screen.findByText('No entry matches these filters. Clear a filter to see more.'),
    ).toBeTruthy()
    expect(screen.getByRole('link', { name: /Export CSV/ }).getAttribute('href')).toBe(
      '/api/console/audit?remote=billing&kind=promoted&source=operator&actor=ada&format=csv',
    )
  })
})
