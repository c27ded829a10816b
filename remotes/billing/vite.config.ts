import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'billing',
  basePath: '/billing',
  nav: { label: 'Billing', order: 20 },
  slots: ['header.end'],
  // The plan badge and the past-due banner are the signed-in user's.
  signedInSlots: ['header.end'],
  // The pricing page is for everyone: visitors compare plans before they sign up.
  publicPaths: ['/plans'],
  root: new URL('.', import.meta.url),
  // The plans and billing pages.
  firstRouteBudgetKiB: 20,
})
