import { e2eStack } from '../support/stack.ts'
import { expect, recordRemoteScripts, remotes, test } from '../support/fixtures.ts'

test('a visitor sees every navigation item before any remote code has arrived', async ({
  page,
  pageErrors,
}) => {
  // The page asks for its remote's files at once (the BFF's preload links), so they download
  // alongside the host's; the navigation must not wait for them. Every cdn answer is held until
  // the navigation is complete.
  let release: () => void = () => undefined
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  let requestedWhileHeld = 0
  await page.route(`${e2eStack.cdnUrl}/**`, async (route) => {
    requestedWhileHeld += 1
    await held
    await route.continue()
  })
  await page.goto('/assistant', { waitUntil: 'domcontentloaded' })
  const nav = page.getByRole('navigation', { name: 'Main' })
  for (const remote of remotes)
    await expect(nav.getByRole('link', { name: remote.label })).toBeVisible()
  expect(requestedWhileHeld).toBeGreaterThan(0)
  release()
  await expect(
    page.locator('[data-tessera-remote="ai"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  expect(pageErrors).toEqual([])
})

test('a route fetches only the remotes it shows: its own and the header slots', async ({
  page,
}) => {
  const scripts = recordRemoteScripts(page)
  await page.goto('/billing')
  await expect(
    page.locator('[data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  const remotesFetched = () => [
    ...new Set(scripts.map((url) => new URL(url).pathname.split('/')[1])),
  ]
  // Every remote fills the header.end slot (user menu, plan badge, usage meter), so each loads on
  // every page (the header's slots may arrive after the page's heading) — and nothing else does:
  // no remote is fetched twice under another version.
  await expect.poll(() => remotesFetched().sort()).toEqual(['ai', 'auth', 'billing'])
  expect(
    new Set(scripts.map((url) => new URL(url).pathname.split('/').slice(1, 3).join('/'))).size,
  ).toBe(3)
})

test('the session, the remotes and the page’s first reads come in the page: none is asked for again', async ({
  page,
}) => {
  // The BFF answers the page's first reads (index.html's session and remotes, the ai remote's
  // `firstReads`) inside the page (first-reads.ts); the host and the remote read them from there.
  // A request for one while the page loads would mean an answer was missed or not used.
  const reads: string[] = []
  page.on('request', (request) => {
    const { pathname, search } = new URL(request.url())
    if (/^\/api\/(me|remotes|assistant\/(conversations|usage))$/.test(pathname))
      reads.push(`${pathname}${search}`)
  })
  const response = await page.goto('/assistant')
  expect(await response?.text()).toContain('id="tessera-first-reads"')
  const ai = page.locator('[data-tessera-remote="ai"]')
  await expect(ai.getByRole('heading', { level: 1 })).toBeVisible()
  // Signed in from the page's answers: the header's usage meter has its figures.
  await expect(page.getByRole('banner').getByRole('link', { name: /^Assistant: / })).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(reads).toEqual([])
  // The answers are gone from the page once read; a later read asks the server.
  expect(await page.locator('#tessera-first-reads').count()).toBe(0)
})

test('a remote page fetches each of its files once: every hint is in the mode its code asks in', async ({
  page,
}) => {
  // The BFF hints the route's files, and the host's own, in the page and in its Link header
  // (routeHints, linkHeader). A hint in another CORS mode than the request that follows is not
  // reused: the file would be fetched a second time.
  const fetched: string[] = []
  page.on('request', (request) => {
    const url = request.url()
    if (url.startsWith(e2eStack.cdnUrl) || new URL(url).pathname.startsWith('/assets/'))
      fetched.push(url)
  })
  const response = await page.goto('/assistant')
  expect(response?.headers()['link']).toContain('rel=modulepreload')
  await expect(
    page.locator('[data-tessera-remote="ai"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  await page.waitForLoadState('networkidle')
  // The route chunk's stylesheet (added by Vite's preload helper) is among them.
  expect(fetched.filter((url) => url.endsWith('.css')).length).toBeGreaterThan(1)
  expect(fetched.filter((url, index) => fetched.indexOf(url) !== index)).toEqual([])
})

test('before any script has run, the page is painted in the visitor’s system theme', async ({
  browser,
}) => {
  // What a phone shows while the scripts download: the boot skeleton from the page's HTML and the
  // host's stylesheet, with the theme's tokens (not the browser's white page and serif text, then
  // a flip once the theme store runs).
  for (const [colorScheme, background, text] of [
    ['dark', 'rgb(14, 17, 22)', 'rgb(230, 233, 239)'],
    ['light', 'rgb(246, 247, 249)', 'rgb(22, 26, 34)'],
  ] as const) {
    const context = await browser.newContext({ colorScheme })
    const page = await context.newPage()
    await page.route('**/*.js', (route) => route.abort())
    await page.goto(`${e2eStack.appUrl}/assistant`)
    await expect(page.getByRole('status')).toHaveText('Starting Tessera…')
    const painted = await page.evaluate(() => {
      const body = getComputedStyle(document.body)
      return { background: body.backgroundColor, text: body.color, font: body.fontFamily }
    })
    expect(painted.background, colorScheme).toBe(background)
    expect(painted.text, colorScheme).toBe(text)
    expect(painted.font).toContain('system-ui')
    await context.close()
  }
})

test('before any script, the page is painted in the theme the visitor picked, not the system’s', async ({
  browser,
}) => {
  // The toggle's pick is kept in localStorage; the page's one inline script (allowed by its hash
  // in the CSP) applies it before the first paint.
  const context = await browser.newContext({ colorScheme: 'light' })
  await context.addInitScript(() => localStorage.setItem('tessera.theme', 'dark'))
  const page = await context.newPage()
  const violations: string[] = []
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text())
  })
  await page.route('**/*.js', (route) => route.abort())
  await page.goto(`${e2eStack.appUrl}/assistant`)
  await expect(page.getByRole('status')).toHaveText('Starting Tessera…')
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
    'rgb(14, 17, 22)',
  )
  expect(violations).toEqual([])
  await context.close()
})
