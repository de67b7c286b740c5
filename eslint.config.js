// ESLint (flat config): rules that catch defects, not taste. Layout and quoting belong to Prettier
// (.prettierrc.json), so no stylistic rule is on here. `npm run lint` checks src/, test/, bench/
// and scripts/; TypeScript is linted with type information (the tsconfig.json program), which the
// promise rules need, and the .mjs/.cjs/.js files without it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Unused values are errors; a leading `_` marks one kept on purpose (a parameter a signature needs). */
const unusedVars = [
  'error',
  {
    args: 'after-used',
    argsIgnorePattern: '^_',
    varsIgnorePattern: '^_',
    caughtErrors: 'all',
    caughtErrorsIgnorePattern: '^_',
    destructuredArrayIgnorePattern: '^_',
    // `const { secret, ...rest } = doc` drops `secret` from `rest`: the point is the omission.
    ignoreRestSiblings: true,
  },
];

export default tseslint.config(
  {
    ignores: [
      'src/gen/**',
      'client/src/gen/**',
      'dist/**',
      'client/dist/**',
      '.test-build*/**',
      'coverage/**',
      'third_party/**',
      'envoy/**',
      'helm/**',
      'assets/**',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // The defects this configuration is for, spelled out (recommendedTypeChecked has them too):
      // a promise nobody awaits or catches loses its errors and its ordering; a promise passed
      // where a void callback is expected (an event handler, forEach) is a floating one in disguise.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Promise.all over values that are never promises is a mistake; over a mix it is how the
      // code waits for what may or may not be asynchronous (MaybePromise), so that stays allowed.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      '@typescript-eslint/no-unused-vars': unusedVars,
      // An `any` switches the type checker off for everything it touches. Where one is needed
      // (a bivariant callback parameter), an eslint-disable comment on the line says why.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // Taste: an async function without await still returns a promise, which interfaces want.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read JSON bodies and protocol messages as `any` and assert their shape at run time;
    // checking every member access of those would be noise, not defects. jest's
    // `expect(object.method)` on mocks is what unbound-method flags, and it is fine there.
    files: ['test/**/*.ts', 'client/test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // bench/, scripts/ and the few JavaScript files of test/ and the root: plain JavaScript for
    // Node, outside the TypeScript program, so linted without type information.
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'no-unused-vars': unusedVars },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
