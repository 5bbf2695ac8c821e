import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * The leaves: modules of src/ that import no other module of bk except leaves, so that both the
 * client and the emulator can use them. The emulator may import only these from outside its folder.
 */
const LEAVES = [
  'spec',
  'money',
  'datetime',
  'utf8',
  'exact-json',
  'python-json',
  'post-body',
  'state-file',
  'bill-rules',
  'journal-entry-rules',
]
const LEAF = `(${LEAVES.join('|')})\\.js`

/**
 * Relative imports that leave `src/emulator/` for anything but a leaf, for files `depth` folders
 * below it: `no-restricted-imports` sees the text of an import, so each depth gets its own regex.
 */
const emulatorBoundary = (depth) => ({
  files: [`src/emulator/${'*/'.repeat(depth)}*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^(\\.\\./){${depth + 1},}(?!${LEAF}$)`,
            message: `The emulator imports only its own modules and the leaves of src/ (${LEAVES.join(', ')}): move what it needs to one (src/spec.ts for the API's constants).`,
          },
          {
            regex: '^(?!node:|\\.)',
            message: "The emulator runs on Node's standard library and the leaves of src/, no packages of its own.",
          },
        ],
      },
    ],
  },
})

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
  // Import boundary: the emulator is a second reading of the spec, not a user of the client.
  ...[0, 1, 2, 3].map(emulatorBoundary),
  {
    // The leaves stay leaves: errors.ts (plain classes) is the one other module they may use.
    files: LEAVES.map((leaf) => `src/${leaf}.ts`),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./|\\./(?!(${LEAF}|errors\\.js)$))`,
              message: `A leaf imports no module of bk but the other leaves (${LEAVES.join(', ')}) and errors.ts.`,
            },
          ],
        },
      ],
    },
  },
)
