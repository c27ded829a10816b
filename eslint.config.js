import path from 'node:path'
import js from '@eslint/js'
import globals from 'globals'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

/** Tests and test helpers: the boundaries below apply to production code only. */
const testFiles = ['**/*.test.{ts,tsx}', '**/testing/**', '**/testing.{ts,tsx}']
/** Test helpers, wherever they are. */
const testing = [
  '**/testing/**',
  '**/testing',
  '**/testing.ts',
  '**/testing.tsx',
  '@tessera/*/testing*',
]
/**
 * A workspace reaches another only by its package name (and so only where the rules below let
 * it): a relative import that leaves the importing file's workspace is an error. The workspace
 * is the folder the patterns below name (remotes/<name>, packages/<name>, host, bff, …).
 */
const workspaceRoot = /^(?:(?:remotes|packages|tooling)\/[^/]+|[^/]+)\//
const stayInWorkspace = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const file = path.relative(context.cwd, context.filename).split(path.sep).join('/')
    const root = workspaceRoot.exec(file)?.[0]
    const check = (node) => {
      const source = node.source?.value
      if (root === undefined || typeof source !== 'string' || !source.startsWith('.')) return
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), source))
      if (!`${target}/`.startsWith(root))
        context.report({
          node: node.source,
          message: `${source} leaves ${root.slice(0, -1)}: import another workspace by its package name.`,
        })
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check }
  },
}
/** Negated patterns that let these workspaces (and their subpaths) through a `@tessera/*` ban. */
const allowed = (names) => names.flatMap((name) => [`!@tessera/${name}`, `!@tessera/${name}/*`])

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/dist-monolith/**',
      '.tessera/**',
      '**/test-results/**',
      '**/playwright-report/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    files: ['host/**/*.{ts,tsx}', 'remotes/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    files: [
      '{remotes,packages,tooling}/*/src/**/*.{ts,tsx}',
      '{host,bff,contracts,emulators}/src/**/*.{ts,tsx}',
    ],
    plugins: { tessera: { rules: { 'stay-in-workspace': stayInWorkspace } } },
    rules: { 'tessera/stay-in-workspace': 'error' },
  },
  // Boundaries (DESIGN §2), by pattern: a new workspace under remotes/ or packages/ is covered
  // without editing this file. Arrows: host, remotes -> plugin-react -> contracts; bff -> db <-
  // emulators; nothing imports a remote, a testing/ folder or the stand-ins from production code.
  {
    files: ['remotes/*/src/**/*.{ts,tsx}'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tessera/*', ...allowed(['contracts', 'plugin-react'])],
              message: 'A remote imports only @tessera/contracts and @tessera/plugin-react.',
            },
            { group: testing, message: 'Production code never imports test helpers.' },
          ],
        },
      ],
    },
  },
  {
    files: ['host/src/**/*.{ts,tsx}'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tessera/*', ...allowed(['contracts'])],
              message: 'The host knows no feature: it imports only @tessera/contracts.',
            },
            { group: testing, message: 'Production code never imports test helpers.' },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/*/src/**/*.{ts,tsx}'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tessera/*', ...allowed(['contracts', 'db', 'plugin-react'])],
              message: 'A runtime package imports only contracts and other packages.',
            },
            { group: testing, message: 'Production code never imports test helpers.' },
          ],
        },
      ],
    },
  },
  {
    files: ['bff/src/**/*.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tessera/*', ...allowed(['contracts', 'db'])],
              message:
                'The BFF ships without the stand-ins: it imports only @tessera/contracts and @tessera/db.',
            },
            { group: testing, message: 'Production code never imports test helpers.' },
          ],
        },
      ],
    },
  },
  {
    files: ['emulators/src/**/*.ts'],
    ignores: testFiles,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@tessera/*', ...allowed(['contracts', 'db'])],
              message: 'The stand-ins use only @tessera/contracts and @tessera/db.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@tessera/*'], message: 'contracts imports nothing of ours.' }] },
      ],
    },
  },
)
