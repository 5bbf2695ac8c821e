import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {globals: {process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly'}},
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-constant-condition': ['error', {checkLoops: false}],
    },
  },
)
