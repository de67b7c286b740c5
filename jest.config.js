/** Jest in native ESM mode (see docs/architecture.md, "Tooling"). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: [
    '<rootDir>/test/**/*.test.ts',
    '<rootDir>/src/**/*.test.ts',
    '<rootDir>/client/test/**/*.test.ts',
  ],
  testTimeout: 30000,
  // Two test files at a time, also on 2 cores (jest's own choice there is one): most files start
  // real service processes and spend their time waiting on them, so two side by side took the
  // suite from about 20 to about 10 minutes (docs/platform/tooling.md). Ports come from a
  // slice per worker (test/support/ports.ts); tests share the one Redis under keys of their own.
  maxWorkers: 2,
  // Tests run in a worker process that is replaced once it holds more than this after a test file:
  // in native ESM mode every file's module graph stays in memory, and a single process running
  // the whole suite in band (jest's choice on 2 cores) ran out of heap near its end.
  workerIdleMemoryLimit: '1GB',
  globalSetup: '<rootDir>/test/global-setup.mjs',
};
