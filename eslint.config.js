import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-constant-condition': ['error', {checkLoops: false}],
    },
  },
  {
    // CommonJS: the loader (bin/package.json) and the bench's preload.
    files: ['bin/run.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly'},
    },
    rules: {'@typescript-eslint/no-require-imports': 'off'},
  },
  {
    // Type-aware rules for the TypeScript sources: a promise-heavy codebase must not drop one.
    files: ['**/*.ts'],
    languageOptions: {parserOptions: {projectService: true, tsconfigRootDir: import.meta.dirname}},
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', {considerDefaultExhaustiveForUnions: true}],
    },
  },
  {
    // Import boundary: the emulator is a separate program; only `bk emulator` starts it.
    files: ['src/**/*.ts'],
    ignores: ['src/emulator/**', 'src/commands/emulator/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {patterns: [{regex: '/emulator/', message: 'Only src/commands/emulator imports the emulator.'}]},
      ],
    },
  },
)
