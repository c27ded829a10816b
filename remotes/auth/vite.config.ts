import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'auth',
  basePath: '/auth',
  nav: { label: 'Account', order: 30 },
  slots: ['header.end'],
  root: new URL('.', import.meta.url),
  // The sign-in form and its pages; the forms' checks (zod) load when a form is first used.
  firstRouteBudgetKiB: 24,
})
