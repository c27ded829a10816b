import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from './lib/paths.ts'

/** The layout the tree states (docs/architecture.md), checked where lint cannot. */
describe('the layout', () => {
  it('ships the BFF without a stand-in: nothing in its production dependency tree is one', () => {
    const tree = execFileSync('npm', ['ls', '--omit=dev', '--all', '--json', '-w', 'bff'], {
      cwd: repoRoot,
      encoding: 'utf8',
    })
    expect(tree).toContain('"@tessera/db"')
    expect(tree).not.toContain('@tessera/emulators')
  })

  it('keeps every source file under 400 lines, or says in docs/architecture.md why not', () => {
    const sources = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.css'], {
      cwd: repoRoot,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(
        (file) =>
          file !== '' &&
          existsSync(path.join(repoRoot, file)) &&
          !/\.test\.tsx?$|\/testing\/|\/fixtures\//.test(file),
      )
    const long = sources.filter(
      (file) => readFileSync(path.join(repoRoot, file), 'utf8').trimEnd().split('\n').length > 400,
    )
    const architecture = readFileSync(path.join(repoRoot, 'docs/architecture.md'), 'utf8')
    const unexplained = long.filter((file) => !architecture.includes(`\`${file}\``))
    expect(unexplained, 'long files that docs/architecture.md does not explain').toEqual([])
  })
})
