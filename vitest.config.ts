import { defineConfig } from 'vitest/config';

const EXCLUDE = ['**/node_modules/**', '.data/**', 'scratch/**'];
/**
 * Files that change what their process holds for the files after them (environment variables, fake timers, process
 * listeners, the global tracer, metrics counted since the process began): each runs in a process of its own.
 */
const ISOLATED = [
  'test/tracing.test.ts',
  'test/observability.test.ts',
  'test/roles.test.ts',
  'platform/tracing.test.ts',
  'platform/config.test.ts',
  'router/router.test.ts',
  'ingest/simulator/timeline.test.ts',
  'domains/markets/service/streams.test.ts',
  'domains/analytics/writer/one-client.test.ts',
];

export default defineConfig({
  // Vite would load graphql's ESM build for project code while yoga loads the CJS one: two graphql modules, and
  // yoga masks our GraphQLErrors (BAD_USER_INPUT) as unexpected. One copy for everybody, as under node.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    exclude: EXCLUDE,
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel, each on its own database cloned from the migrated template.
    maxWorkers: 2,
    // The servers' JSON logs (platform/log.ts): warnings and errors only, unless a run asks for more.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    projects: [
      // Most files share a worker's process and the modules it imported (a file importing the whole service, its
      // GraphQL and HTTP libraries, took seconds of every file): a test file closes what it starts.
      {
        extends: true,
        test: { name: 'shared', include: ['**/*.test.ts'], exclude: [...EXCLUDE, ...ISOLATED], isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
