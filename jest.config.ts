import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/spec'],
  testMatch: ['**/*.spec.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/spec/types/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // `jose` and `@statelyai/inspect` (the inspection spec's) ship ES modules only: tests load them as
    // CommonJS, as Node's require does at run time.
    '^.+/node_modules/(jose/.+\\.js|@statelyai/inspect/.+\\.mjs)$': [
      'ts-jest',
      { tsconfig: { allowJs: true, module: 'commonjs', moduleResolution: 'node10', target: 'ES2022' }, isolatedModules: true },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/|@statelyai/inspect/)'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testTimeout: 20_000,
};

export default config;
