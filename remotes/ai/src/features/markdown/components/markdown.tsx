import { memo, useEffect, useState } from 'react'
import type { JSX, ReactNode } from 'react'
import Markdown, { type Components, type ExtraProps, type UrlTransform } from 'react-markdown'
import remarkGfm from 'remark-gfm'
import '../markdown.css'

const allowedProtocols = new Set(['http:', 'https:', 'mailto:'])

/**
 * Answers come from a model that repeats whatever it was shown, so every URL is suspect: links
 * keep only absolute http(s) and mailto addresses (and the footnote anchors GFM makes); anything
 * else (`javascript:`, `data:`, relative paths) becomes '' and the link renders as plain text.
 */
export const safeUrl: UrlTransform = (url) => {
  if (url.startsWith('#user-content-')) return url
  if (!URL.canParse(url)) return ''
  return allowedProtocols.has(new URL(url).protocol) ? url : ''
}

type Node = ExtraProps['node']
type HastChild = NonNullable<Node>['children'][number]

/** The text inside a hast node: what a code block's Copy button copies. */
function textOf(node: Node | HastChild | undefined): string {
  if (node === undefined) return ''
  if (node.type === 'text') return node.value
  if ('children' in node) return node.children.map((child) => textOf(child)).join('')
  return ''
}

function SafeLink({ href, children, node: _node, ...rest }: ComponentPropsOf<'a'>) {
  if (!href) {
    return (
      <span className="md-link-removed" title="Link removed: only web and email links are kept">
        {children}
      </span>
    )
  }
  if (href.startsWith('#')) return <a href={href}>{children}</a>
  const external = !href.startsWith('mailto:')
  return (
    <a
      {...rest}
      href={href}
      {...(external ? { target: '_blank', rel: 'noopener noreferrer nofollow' } : {})}
    >
      {children}
      {external && <span className="visually-hidden"> (opens in a new tab)</span>}
    </a>
  )
}

/**
 * Images are never loaded: a model could point one at any server and learn who read the answer.
 * A safe address becomes a link the reader can choose to open.
 */
function ImageAsLink({ src, alt }: ComponentPropsOf<'img'>) {
  const label = alt?.trim() || 'image'
  const address = typeof src === 'string' ? src : ''
  return (
    <span className="md-image">
      <span aria-hidden="true">🖼</span> Image:{' '}
      {address ? <SafeLink href={address}>{label}</SafeLink> : label}
    </span>
  )
}

function CodeBlock({ node, children }: ComponentPropsOf<'pre'>) {
  const code = node?.children.find((child) => child.type === 'element' && child.tagName === 'code')
  const className =
    code?.type === 'element' && Array.isArray(code.properties.className)
      ? code.properties.className.map(String)
      : []
  const language = className.find((name) => name.startsWith('language-'))?.slice(9) ?? null
  return (
    <div className="md-code">
      <div className="md-code__bar">
        <span className="md-code__language">{language ?? 'code'}</span>
        <CopyButton text={textOf(code).replace(/\n$/, '')} />
      </div>
      <pre tabIndex={0}>{children}</pre>
    </div>
  )
}

/** Copies `text`, saying "Copied" (or why not) on the button for two seconds. */
export function CopyButton({
  text,
  className = 'md-code__copy',
  label = 'Copy',
  failed = 'Copy failed',
}: {
  text: string
  className?: string
  label?: string
  failed?: string
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle')
  useEffect(() => {
    if (state === 'idle') return
    const timer = setTimeout(() => setState('idle'), 2000)
    return () => clearTimeout(timer)
  }, [state])
  const copy = () => {
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      (error: unknown) => {
        // Clipboard access can be refused (permissions, an insecure origin); say so on the button.
        console.warn('Copying the code failed', error)
        setState('failed')
      },
    )
  }
  return (
    <button type="button" className={className} onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? failed : label}
    </button>
  )
}

function Table({ node: _node, ...rest }: ComponentPropsOf<'table'>) {
  return (
    // Wide tables scroll on their own; focusable so a keyboard can scroll them too.
    <div className="md-table" tabIndex={0} role="group" aria-label="Table">
      <table {...rest} />
    </div>
  )
}

type ComponentPropsOf<Tag extends keyof JSX.IntrinsicElements> = JSX.IntrinsicElements[Tag] &
  ExtraProps

/** Headings inside an answer sit below the page's h1 and the thread's h2. */
const shiftHeading =
  (Tag: 'h3' | 'h4' | 'h5' | 'h6') =>
  ({ node: _node, ...rest }: ComponentPropsOf<'h1'>) => <Tag {...rest} />

const components: Components = {
  a: SafeLink,
  img: ImageAsLink,
  pre: CodeBlock,
  table: Table,
  h1: shiftHeading('h3'),
  h2: shiftHeading('h4'),
  h3: shiftHeading('h5'),
  h4: shiftHeading('h6'),
  h5: shiftHeading('h6'),
  h6: shiftHeading('h6'),
}

const remarkPlugins = [remarkGfm]

/**
 * An answer's Markdown, rendered safely: react-markdown builds React elements (never HTML
 * strings), raw HTML in the answer is shown as text, URLs pass `safeUrl`, images are not loaded.
 */
export const MarkdownView = memo(function MarkdownView({
  text,
  live = false,
}: {
  text: string
  /** Still streaming: a caret follows the last words. */
  live?: boolean
}): ReactNode {
  return (
    <div className={live ? 'md md--live' : 'md'}>
      <Markdown remarkPlugins={remarkPlugins} urlTransform={safeUrl} components={components}>
        {text}
      </Markdown>
    </div>
  )
})
