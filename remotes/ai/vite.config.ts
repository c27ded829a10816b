import { defineRemoteConfig } from '@tessera/remote-build'

export default defineRemoteConfig({
  name: 'ai',
  basePath: '/assistant',
  nav: { label: 'Assistant', order: 10 },
  slots: ['header.end'],
  root: new URL('.', import.meta.url),
  // The assistant page brings its Markdown renderer (remark, micromark: most of the page's
  // chunk) to its first paint; loading it once a message is shown would lower this a lot.
  firstRouteBudgetKiB: 72,
})
