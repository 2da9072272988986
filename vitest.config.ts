import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The client package from its TypeScript source (as tsconfig.json's `paths` for tsc and tsx): the
 * server's tests see the client's current code without building it; the built server imports its
 * dist/ through the workspace link (docs/decisions.md "The client package").
 */
const clientSource = (entry: string) =>
  fileURLToPath(new URL(`packages/client/src/${entry}/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@hanse\/client$/, replacement: clientSource("sdk") },
      { find: /^@hanse\/client\/(protocol|cli)$/, replacement: clientSource("$1") },
      {
        find: /^@hanse\/client\/cli\/errors$/,
        replacement: fileURLToPath(new URL("packages/client/src/cli/describe-error.ts", import.meta.url)),
      },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "packages/client/src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Two test files at a time at least: Vitest's default (cores - 1) runs one at a time on a
    // 2-core machine, which leaves a core idle while a file imports or waits on a child process
    // or the database; the suite took about half the time with two (docs/decisions.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/outbound-check.setup.ts"],
  },
});
