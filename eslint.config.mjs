import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Files under `files` may not import (relatively) from the top-level folders in `forbidden`. */
function layer(files, forbidden, why) {
  const folders = forbidden.join("|");
  return {
    files: [files],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${folders})(/|$)`,
              message: `${why} (layering: server -> api, provider -> api, sdk -> provider/api).`,
            },
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "examples/**/node_modules/**", "bench/results/**", ".tmp/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // The direction of imports (docs/ARCHITECTURE.md): api imports nothing of ours outside api; server and provider
  // import api only; sdk imports provider and api. tools, test and bench may import anything.
  layer(
    "api/**/*.ts",
    ["server", "provider", "sdk", "tools", "test", "bench", "examples"],
    "api/ is the shared contract",
  ),
  layer("server/**/*.ts", ["provider", "sdk", "tools", "test", "bench", "examples"], "server/ may import api/ only"),
  layer("provider/**/*.ts", ["server", "sdk", "tools", "test", "bench", "examples"], "provider/ may import api/ only"),
  layer("sdk/**/*.ts", ["server", "tools", "test", "bench", "examples"], "sdk/ may import provider/ and api/ only"),
  {
    // Plain Node scripts run before the build (scripts/*.cjs).
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", module: "writable", __dirname: "readonly", process: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
