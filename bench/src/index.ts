/** `npm run bench [name]`: every benchmark, each against a reference measured in the same run. */
const benchmarks = [
  'cold-load',
  'api-me',
  'assistant',
  'assistant-priority',
  'webhooks',
  'plugin-api',
  'cluster',
  'lighthouse',
] as const
const which = process.argv[2] ?? 'all'
if (which !== 'all' && !(benchmarks as readonly string[]).includes(which)) {
  console.error(`Unknown benchmark "${which}". Choose one of: all, ${benchmarks.join(', ')}.`)
  process.exit(2)
}
if (which === 'all' || which === 'cold-load') await import('./cold-load.ts')
if (which === 'all' || which === 'api-me') await import('./api-me.ts')
if (which === 'all' || which === 'assistant') await import('./assistant.ts')
// Part of the assistant's benchmark ("Priority answers"), also run alone by its name.
if (['all', 'assistant', 'assistant-priority'].includes(which))
  await import('./assistant-priority.ts')
if (which === 'all' || which === 'webhooks') await import('./webhooks.ts')
if (which === 'all' || which === 'plugin-api') await import('./plugin-api.ts')
if (which === 'all' || which === 'cluster') await import('./cluster.ts')
if (which === 'all' || which === 'lighthouse') await import('./lighthouse.ts')
