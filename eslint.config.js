// Lint: the recommended rules of eslint and typescript-eslint, plus the house rule that the
// pure core never imports I/O libraries (STYLE.md: side effects live at the edges).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioLibraries = [
  '@kubernetes/client-node',
  'ioredis',
  'bullmq',
  'express',
  'cloudevents',
  'pino',
  'node:net',
  'node:http',
  'node:https',
  'node:fs',
  'node:child_process',
  '@aws-sdk/client-s3',
  '@aws-sdk/lib-storage',
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.cache/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Plain Node scripts that run before node_modules exists (infra/setup).
    files: ['**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        performance: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
      },
    },
  },
  {
    // One module talks S3, and loads the SDK lazily (cold start): shared/io/object-store.ts.
    files: ['functions/**/*.ts', 'shared/**/*.ts', 'infra/**/*.ts'],
    ignores: ['shared/io/object-store.ts', 'shared/core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@aws-sdk/*'],
              message: 'Use shared/io/object-store.ts, the one module that talks S3.',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    files: ['shared/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ioLibraries.map((name) => ({
            name,
            message: 'shared/core is pure: do I/O in shared/io or a function.',
            allowTypeImports: true,
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'shared/core is pure: configuration is passed in.' },
      ],
    },
  },
);
