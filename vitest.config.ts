import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["test/support/outbound-check.setup.ts"],
  },
});
