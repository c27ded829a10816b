/**
 * Draws a `node --cpu-prof` profile as an SVG, top-down, frames merged by name along each path
 * (idle and program time left out), for the profiles kept in docs/decisions/:
 * `npx tsx bench/src/flame-graph.ts <in.cpuprofile> <out.svg> "<title>" [smallest %]`.
 */
import { readFileSync, writeFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}
interface Frame {
  name: string
  micros: number
  children: Map<string, Frame>
}

const [input, output, title = 'CPU profile', smallest = '0.4'] = process.argv.slice(2)
if (input === undefined || output === undefined) {
  console.error(
    'Usage: tsx bench/src/flame-graph.ts <in.cpuprofile> <out.svg> [title] [smallest %]',
  )
  process.exit(2)
}
const profile = JSON.parse(readFileSync(input, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const selfMicros = new Map<number, number>()
profile.samples.forEach((id, index) =>
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
)

function nameOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame
  const file = url
    .replace(/^file:\/\//, '')
    .replace(/.*node_modules\//, '')
    .split('/')
    .slice(-2)
    .join('/')
  return `${functionName || '(anonymous)'}${file === '' ? '' : ` ${file}:${lineNumber + 1}`}`
}

const root: Frame = { name: 'all', micros: 0, children: new Map() }
function merge(id: number, into: Frame): number {
  const node = byId.get(id)
  if (node === undefined) return 0
  const name = nameOf(node)
  if (name.startsWith('(idle)') || name.startsWith('(program)')) return 0
  const frame = into.children.get(name) ?? { name, micros: 0, children: new Map() }
  into.children.set(name, frame)
  let micros = selfMicros.get(id) ?? 0
  for (const child of node.children ?? []) micros += merge(child, frame)
  frame.micros += micros
  return micros
}
for (const child of profile.nodes[0]?.children ?? []) root.micros += merge(child, root)

const width = 1600
const row = 17
const least = (root.micros * Number(smallest)) / 100
const escape = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
const hueOf = (name: string) =>
  name.startsWith('wasm') ? 200 : name.includes('pglite') ? 190 : name.includes('node:') ? 40 : 15
let body = ''
let deepest = 0
function draw(frame: Frame, x: number, depth: number): void {
  if (frame.micros < least) return
  deepest = Math.max(deepest, depth)
  const w = (frame.micros / root.micros) * width
  const y = depth * row
  const share = ((100 * frame.micros) / root.micros).toFixed(1)
  body += `<g><title>${escape(frame.name)} — ${(frame.micros / 1000).toFixed(0)} ms (${share} %)</title>`
  body += `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(w - 0.5, 0.5).toFixed(1)}" height="${row - 1}" fill="hsl(${hueOf(frame.name)},70%,${60 + (depth % 3) * 6}%)"/>`
  if (w > 40)
    body += `<text x="${(x + 3).toFixed(1)}" y="${y + 12}" font-size="11" font-family="monospace">${escape(frame.name.slice(0, Math.floor(w / 7)))}</text>`
  body += '</g>'
  let left = x
  for (const child of [...frame.children.values()].sort((a, b) => b.micros - a.micros)) {
    draw(child, left, depth + 1)
    left += (child.micros / root.micros) * width
  }
}
draw(root, 0, 1)
const height = (deepest + 2) * row + 10
const heading = `${escape(title)} — ${(root.micros / 1000).toFixed(0)} ms on CPU (idle left out); frames under ${smallest} % hidden; hover for names`
writeFileSync(
  output,
  `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><rect width="100%" height="100%" fill="#fff"/><text x="4" y="12" font-size="12" font-family="sans-serif">${heading}</text>${body}</svg>\n`,
)
console.log(`${output}: ${(root.micros / 1000).toFixed(0)} ms on CPU`)
