/** Jest runs in native ESM (NODE_OPTIONS=--experimental-vm-modules) with @swc/jest. */
const swcConfig = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2023',
    keepClassNames: true,
  },
  module: { type: 'es6' },
  sourceMaps: 'inline',
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcConfig] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.js',
  globalTeardown: '<rootDir>/test/support/global-teardown.js',
  setupFilesAfterEnv: ['<rootDir>/test/support/response-contract.setup.ts'],
  // Shards split by measured suite duration (scripts/test.mjs runs two side by side).
  testSequencer: '<rootDir>/test/support/duration-sequencer.mjs',
  reporters: ['default', '<rootDir>/test/support/duration-reporter.mjs'],
  // End-to-end tests start real service and CLI processes; a busy CI machine can take minutes for a few of them.
  testTimeout: 180_000,
  maxWorkers: 1,
  verbose: false,
};
