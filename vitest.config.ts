import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Vite would load graphql's ESM build for project code while yoga loads the CJS one: two graphql modules, and
  // yoga masks our GraphQLErrors (BAD_USER_INPUT) as unexpected. One copy for everybody, as under node.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', '.data/**', 'scratch/**'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: files run in parallel, each on its own database cloned from the migrated template.
    maxWorkers: 2,
    // The servers' JSON logs (platform/log.ts): warnings and errors only, unless a run asks for more.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
  },
});
