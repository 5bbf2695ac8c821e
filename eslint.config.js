import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import {dirname, relative, resolve, sep} from 'node:path'

/**
 * Import boundaries, by folder, written once. Each zone names the folders (under src/) that the
 * files of `from` may import; an import is resolved against the importing file, so depth and
 * spelling do not matter. `node:` built-ins are always allowed; `packages` says whether npm
 * packages are.
 */
const ZONES = [
  {
    from: 'src/emulator/',
    allow: ['src/emulator/', 'src/shared/'],
    packages: false,
    message:
      'The emulator is a second reading of the spec: it imports only its own modules, src/shared/ and node: built-ins (move what both sides need to src/shared/).',
  },
  {
    from: 'src/shared/',
    allow: ['src/shared/'],
    packages: true,
    message: 'src/shared/ holds the leaves the client and the emulator both use: they import only each other.',
  },
  {
    from: 'src/startup/',
    allow: ['src/startup/'],
    packages: false,
    message:
      'src/startup/ runs before the bundle is read (bin/run.js): it imports only its own modules and node: built-ins.',
  },
  {
    from: 'src/',
    except: ['src/emulator/', 'src/commands/emulator/'],
    deny: ['src/emulator/'],
    packages: true,
    message: 'Only src/commands/emulator/ imports the emulator.',
  },
]

/** A rule that checks each relative import of a file against the zones its path falls in. */
const boundaries = {
  rules: {
    zones: {
      meta: {type: 'problem', schema: []},
      create(context) {
        const file = relative(import.meta.dirname, context.filename)
          .split(sep)
          .join('/')
        const zones = ZONES.filter((z) => file.startsWith(z.from) && !(z.except ?? []).some((e) => file.startsWith(e)))
        if (!zones.length) return {}
        const check = (node, spec) => {
          if (typeof spec !== 'string' || spec.startsWith('node:')) return
          for (const zone of zones) {
            const target = spec.startsWith('.')
              ? relative(import.meta.dirname, resolve(dirname(context.filename), spec))
                  .split(sep)
                  .join('/')
              : undefined
            const bad = target
              ? (zone.allow && !zone.allow.some((a) => target.startsWith(a))) ||
                (zone.deny ?? []).some((d) => target.startsWith(d))
              : !zone.packages
            if (bad) context.report({node, message: `${spec}: ${zone.message}`})
          }
        }
        return {
          ImportDeclaration: (node) => check(node.source, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
          ExportAllDeclaration: (node) => check(node.source, node.source.value),
          ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
        }
      },
    },
  },
}

export default tseslint.config(
  {ignores: ['dist/', 'node_modules/', 'coverage/', 'test/fixtures/', 'src/**/*.generated.ts']},
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
  {files: ['src/**/*.ts'], plugins: {boundaries}, rules: {'boundaries/zones': 'error'}},
)
