// Lint: the recommended sets of ESLint and typescript-eslint (not the type-checked ones: they
// build a whole program on each run and make the lint slow), with node's globals. Layout is
// prettier's (.prettierrc.json), not this file's.
import js from '@eslint/js'
import { defineConfig } from 'eslint/config'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default defineConfig(
  {
    ignores: ['dist/', '.tap/', 'test/e2e/node_modules/', 'test/e2e/clis/', 'test/fixtures/', '**/*.generated.js', '**/*.generated.d.ts'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // The visible-text and screen parsers, the TOML writer and the tests of what reaches a
      // terminal match control characters (ESC, C0, C1) on purpose.
      'no-control-regex': 'off',
      // `const { hooks: _old, ...rest } = settings` is how a key is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A child's exit handler is installed before the kill timer it clears can exist.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Comparisons are strict; the one loose one (assert.equal's stand-in) says why.
      eqeqeq: 'error',
    },
  },
  {
    // CommonJS files (the bin shim, the emitter's loader, test stand-ins) load with require.
    files: ['**/*.cts', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
)
