import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Code that Pulumi serializes (closures) must be loaded from tsc's dist/, never through vite's transform.
    server: { deps: { external: [/\/dist\//] } },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
