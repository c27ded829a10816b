import type { AtRule, Container, Declaration, Document, PluginCreator, Root, Rule } from 'postcss'

/** The attribute selector of the element the host mounts a remote into. */
export function scopeSelectorFor(remote: string): string {
  return `[data-tessera-remote="${remote}"]`
}

/** Characters that end a top-level compound selector. */
const combinatorChars = new Set([' ', '\t', '\n', '\r', '\f', '>', '+', '~'])

/**
 * Splits `text` at `separator` where it is not inside brackets, parentheses, strings or an
 * escape, so `:is(a, b), c` splits into two selectors, not three.
 */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quote: string | null = null
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (char === '\\') {
      i++
      continue
    }
    if (quote !== null) {
      if (char === quote) quote = null
      continue
    }
    if (char === '"' || char === "'") quote = char
    else if (char === '(' || char === '[') depth++
    else if (char === ')' || char === ']') depth--
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** Returns the end index (exclusive) of the compound selector starting at `from`. */
function compoundEnd(selector: string, from: number): number {
  let depth = 0
  let quote: string | null = null
  for (let i = from; i < selector.length; i++) {
    const char = selector[i] ?? ''
    if (char === '\\') {
      i++
      continue
    }
    if (quote !== null) {
      if (char === quote) quote = null
      continue
    }
    if (char === '"' || char === "'") quote = char
    else if (char === '(' || char === '[') depth++
    else if (char === ')' || char === ']') depth--
    else if (depth === 0 && combinatorChars.has(char)) return i
  }
  return selector.length
}

/** Skips a descendant or child combinator (with its whitespace) at `from`; -1 for `+`/`~`. */
function skipCombinator(selector: string, from: number): number {
  let i = from
  let sawChild = false
  while (i < selector.length) {
    const char = selector[i] ?? ''
    if (char === '>' && !sawChild) sawChild = true
    else if (char === '+' || char === '~') return -1
    else if (!combinatorChars.has(char)) break
    i++
  }
  return i
}

const identChar = /[-\w\u00a0-\uffff\\]/

/**
 * If `compound` starts with a document-root selector (`:root`, `:scope`, `html`) or `body`,
 * returns what follows it (`.dark` for `html.dark`) and which one it was; otherwise null.
 */
function stripRootLike(compound: string): { kind: 'root' | 'body'; rest: string } | null {
  const candidates: { prefix: string; kind: 'root' | 'body' }[] = [
    { prefix: ':root', kind: 'root' },
    { prefix: ':scope', kind: 'root' },
    { prefix: 'html', kind: 'root' },
    { prefix: 'body', kind: 'body' },
  ]
  for (const { prefix, kind } of candidates) {
    if (compound.slice(0, prefix.length).toLowerCase() !== prefix) continue
    const next = compound[prefix.length]
    // `html-card` or `:root-ish` is another name that only starts the same way.
    if (next !== undefined && identChar.test(next)) continue
    return { kind, rest: compound.slice(prefix.length) }
  }
  return null
}

/**
 * Rewrites one complex selector so it only matches inside the scope element. Document-root
 * selectors (`:root`, `html`, `body`, `html body`) become the scope element itself, because for a
 * remote its mount element is the whole page it owns.
 */
export function scopeComplexSelector(selector: string, scope: string): string {
  const trimmed = selector.trim()
  // Already scoped (the stylesheet went through this plugin before): leave it as it is.
  if (trimmed === '' || trimmed.startsWith(scope)) return trimmed
  const firstEnd = compoundEnd(trimmed, 0)
  const first = stripRootLike(trimmed.slice(0, firstEnd))
  if (first === null) return `${scope} ${trimmed}`

  let rest = first.rest
  let index = firstEnd
  if (first.kind === 'root') {
    // `html body .x` and `:root > body` name the same element as `body`: fold them into the scope.
    const afterCombinator = skipCombinator(trimmed, firstEnd)
    if (afterCombinator !== -1 && afterCombinator < trimmed.length) {
      const secondEnd = compoundEnd(trimmed, afterCombinator)
      const second = stripRootLike(trimmed.slice(afterCombinator, secondEnd))
      if (second?.kind === 'body') {
        rest += second.rest
        index = secondEnd
      }
    }
  }
  return `${scope}${rest}${trimmed.slice(index)}`
}

/** Rewrites a selector list (`h1, :root .x`) so that every selector in it is scoped. */
export function scopeSelectorList(selectorList: string, scope: string): string {
  const scoped = splitTopLevel(selectorList, ',').map((part) => scopeComplexSelector(part, scope))
  return [...new Set(scoped.filter((part) => part !== ''))].join(', ')
}

const keyframesAtRule = /^(?:-[a-z]+-)?keyframes$/i

/**
 * Whether a rule sits inside another rule (nesting) or inside `@keyframes`: keyframe steps
 * (`from`, `50%`) are not element selectors, and nested rules inherit their parent's scope.
 */
function isNestedOrKeyframe(rule: Rule): boolean {
  let parent: Container | Document | undefined = rule.parent
  while (parent !== undefined) {
    if (parent.type === 'rule') return true
    if (parent.type === 'atrule' && keyframesAtRule.test((parent as AtRule).name)) return true
    parent = parent.parent
  }
  return false
}

function renameAnimations(declaration: Declaration, renames: Map<string, string>): void {
  const property = declaration.prop.toLowerCase()
  if (property !== 'animation' && property !== 'animation-name') return
  declaration.value = splitTopLevel(declaration.value, ',')
    .map((animation) =>
      animation.replace(
        /(^|[\s])(-?[_a-zA-Z][-\w]*)(?=$|[\s])/g,
        (whole, lead: string, word: string) => {
          const renamed = renames.get(word)
          return renamed === undefined ? whole : `${lead}${renamed}`
        },
      ),
    )
    .join(',')
}

export interface ScopeCssOptions {
  /** The remote's federation name: rules are scoped to `[data-tessera-remote="<remote>"]`. */
  remote: string
}

/**
 * PostCSS plugin: every rule of a remote's stylesheet applies only inside the element the host
 * mounts that remote into, and its `@keyframes` names are prefixed so they cannot replace the
 * host's or another remote's animations of the same name.
 */
export const scopeCss: PluginCreator<ScopeCssOptions> = (options) => {
  if (options === undefined || options.remote === '') {
    throw new Error('scopeCss needs the remote name to scope to')
  }
  const scope = scopeSelectorFor(options.remote)
  const keyframesPrefix = `tessera-${options.remote}-`
  return {
    postcssPlugin: 'tessera-scope-css',
    Once(root: Root) {
      const renames = new Map<string, string>()
      root.walkAtRules(keyframesAtRule, (atRule) => {
        const name = atRule.params.trim()
        if (name === '' || name.startsWith(keyframesPrefix)) return
        const renamed = `${keyframesPrefix}${name.replace(/^["']|["']$/g, '')}`
        renames.set(name, renamed)
        atRule.params = renamed
      })
      if (renames.size > 0) root.walkDecls((declaration) => renameAnimations(declaration, renames))

      root.walkRules((rule) => {
        if (!isNestedOrKeyframe(rule)) rule.selector = scopeSelectorList(rule.selector, scope)
      })
    },
  }
}
scopeCss.postcss = true
