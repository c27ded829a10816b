/** `npm run bench [name]`: every benchmark, each against a reference measured in the same run. */
const which = process.argv[2] ?? 'all'
if (which === 'all' || which === 'cold-load') await import('./cold-load.ts')
if (which === 'all' || which === 'api-me') await import('./api-me.ts')
