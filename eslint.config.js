import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/**/domain/**/*.ts'],
    rules: {
      // Domain code is pure: the clock and ids come in as arguments.
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Inject the clock.' },
        { object: 'Math', property: 'random', message: 'Inject randomness.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            'node:fs*',
            'node:net',
            'node:http*',
            'pg',
            'mongodb',
            '@electric-sql/*',
            '@eventstore/*',
            '@nestjs/*',
          ],
        },
      ],
    },
  },
);
