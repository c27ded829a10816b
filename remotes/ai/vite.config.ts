import { defineRemoteConfig } from '@tessera/remote-build'
import { firstReads } from './src/first-reads.ts'

export default defineRemoteConfig({
  name: 'ai',
  basePath: '/assistant',
  nav: { label: 'Assistant', order: 10 },
  slots: ['header.end'],
  // The usage meter is the signed-in user's: a visitor's pages load none of this remote.
  signedInSlots: ['header.end'],
  firstReads,
  root: new URL('.', import.meta.url),
  // 28.6 KiB since the Markdown renderer (remark, micromark: 48 KiB) loads once an answer is
  // shown; the rest is headroom for the page's own features, not for the renderer coming back.
  firstRouteBudgetKiB: 40,
})
