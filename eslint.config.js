import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { layersPlugin } from './eslint.layers.js';

/** The feature folders: each a bounded context with its domain, commands, queries and HTTP/CLI adapters. */
const FEATURES =
  '(accounts|audit|catalogue|credits|data-loads|exports|exposure|fingerprints|mcp|operators|organizations|search)';

export default tseslint.config(
  {
    ignores: [
      'console/src/api/schema.d.ts',
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      'bench/results/**',
    ],
  },
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
    // The web console runs in the browser (issue 19).
    files: ['console/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        Headers: 'readonly',
        Request: 'readonly',
        Response: 'readonly',
        AbortController: 'readonly',
        TextDecoder: 'readonly',
        URLSearchParams: 'readonly',
        FormData: 'readonly',
        HTMLElement: 'readonly',
        localStorage: 'readonly',
        sessionStorage: 'readonly',
        navigator: 'readonly',
        location: 'readonly',
      },
    },
  },
  {
    files: ['src/**/*.ts', 'projections/**/*.ts'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/no-import-cycle': 'error' },
  },
  {
    // One write path (ADR 4): features append through the StreamWriter, never to the event store itself.
    files: ['src/**/*.ts'],
    ignores: ['src/platform/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name='append'][callee.object.property.name=/^eventStore$/]",
          message: 'Append through the StreamWriter (decide, onceOnly or record), not the event store.',
        },
      ],
    },
  },
  {
    // The platform is the features' foundation: it names none of them. The composition roots (src/main.ts,
    // src/cli.ts, src/composition/, src/app.module.ts) put the two together.
    files: ['src/platform/**/*.ts'],
    rules: {
      'layers/boundaries': [
        'error',
        {
          layer: 'src/platform',
          deny: [`^src/${FEATURES}/`, '^src/composition/', '^src/[^/]+\\.ts$', '^projections/'],
        },
      ],
    },
  },
  {
    // Read models: pure functions of domain events, written through the platform's projection port.
    files: ['projections/**/*.ts'],
    rules: {
      'layers/boundaries': [
        'error',
        {
          layer: 'projections',
          allow: [
            '^projections/',
            '^src/[^/]+/domain/',
            '^src/platform/projections/projection-definition\\.ts$',
            '^src/platform/event-store/event-store\\.port\\.ts$',
            '^src/platform/read-store/read-store\\.port\\.ts$',
            '^src/platform/event-sourcing/decider\\.ts$',
          ],
          allowPackages: false,
        },
      ],
    },
  },
  {
    // Query services only read (ADR 5): a GET never writes, so the write path is out of their reach.
    files: ['src/**/queries/**/*.ts'],
    rules: {
      'layers/boundaries': [
        'error',
        {
          layer: 'queries',
          deny: [
            '^src/platform/event-sourcing/(stream-writer|event-sourced-repository)\\.ts$',
            '^src/platform/event-store/event-id\\.ts$',
          ],
        },
      ],
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
            'node:dns*',
            'node:dgram',
            'node:tls',
            'node:child_process',
            'node:worker_threads',
            'pg',
            'mongodb',
            'nodemailer',
            'openid-client',
            'pino',
            'fastify',
            '@fastify/*',
            '@electric-sql/*',
            '@eventstore/*',
            '@nestjs/*',
          ],
        },
      ],
      // …and so is everything it imports from the project: other domains and the platform's pure pieces. A
      // type-only import (a port's record type) loads nothing. The query language's parsers are pure.
      'layers/boundaries': [
        'error',
        {
          layer: 'domain',
          allow: [
            '^src/[^/]+/domain/',
            '^src/platform/event-sourcing/decider\\.ts$',
            '^src/platform/errors/',
            '^src/search/query-language/(validation|ast)\\.ts$',
          ],
          typesFrom: ['^src/'],
        },
      ],
    },
  },
);
