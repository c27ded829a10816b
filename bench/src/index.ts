/** `npm run bench`: every benchmark, each against a reference measured in the same run. */
const which = process.argv[2] ?? 'all'
if (which === 'all' || which === 'cold-load') await import('./cold-load.ts')
