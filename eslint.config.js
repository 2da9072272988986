// @ts-check
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

/** Code outside the EDIFACT library (its tests aside) reaches it through its index only. */
const edifactThroughIndex = {
  regex: "/edifact/(?!index\\.js$)",
  message: "the EDIFACT library is reached through src/edifact/index.ts only",
};

/** The server reaches the client package through its published entry points only (`@hanse/client`, `/protocol`, `/cli`). */
const clientThroughExports = {
  regex: "/packages/client/",
  message:
    "the server imports the client package as @hanse/client (or /protocol, /cli, /cli/errors), never its files",
};

const layer = (files, patterns) => ({
  files,
  rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns }] },
});

export default tseslint.config(
  // docs/audit: the auditor's script, plain JavaScript run without Hanse; its test runs it.
  {
    ignores: [
      "node_modules",
      "dist",
      ".build-test-*",
      "data",
      "coverage",
      "bin",
      "packages/client/bin",
      "packages/client/dist",
      "eslint.config.js",
      "docs/audit",
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      // Fastify handlers are async by convention even when they return a value directly.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unnecessary-type-parameters": "off",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // The console's browser modules (plain ES modules, no build): linted without type information.
  {
    files: ["src/console/assets/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: "module",
      globals: Object.fromEntries(
        [
          "document",
          "window",
          "location",
          "fetch",
          "crypto",
          "confirm",
          "FormData",
          "URLSearchParams",
          "Node",
          "setTimeout",
          "history",
          "navigator",
          "CSS",
          "getSelection",
        ].map((name) => [name, "readonly"]),
      ),
    },
  },
  // Layering rules of docs/architecture.md ("Layers"). The first applies to every file of src/; the
  // later ones replace it for their files, so each repeats what it still needs.
  layer(["src/**"], [clientThroughExports]),
  layer(
    ["src/platform/**"],
    [
      { group: ["**/modules/**"], message: "platform/ knows no feature module" },
      {
        regex: "^@hanse/client(/cli(/errors)?)?$",
        message: "platform/ never imports the SDK or the CLI (the published protocol only)",
      },
      clientThroughExports,
    ],
  ),
  layer(
    ["src/edifact/**"],
    [
      {
        group: ["**/platform/**", "**/modules/**", "**/config/**", "**/packages/**", "@hanse/*"],
        message: "edifact/ imports nothing from the rest of src/ or the client",
      },
      {
        group: ["node:fs", "node:fs/*", "node:net", "node:http", "node:child_process", "fs", "net", "http"],
        message: "edifact/ does no I/O",
      },
    ],
  ),
  // The client package depends on nothing of the server (issue 36): no path leaves packages/client/src.
  {
    ...layer(
      ["packages/client/src/**"],
      [{ group: ["../../*"], message: "the client package imports nothing outside packages/client/src" }],
    ),
    ignores: ["**/*.test.ts"],
  },
  layer(
    ["packages/client/src/sdk/**"],
    [
      { group: ["../../*"], message: "the client package imports nothing outside packages/client/src" },
      { group: ["../cli/*"], message: "the SDK never imports the CLI" },
    ],
  ),
  layer(
    ["packages/client/src/protocol/**"],
    [{ group: ["../*"], message: "protocol/ has no dependencies (no sdk/ or cli/)" }],
  ),
  layer(
    ["examples/**"],
    [
      {
        group: ["**/src/**", "**/packages/**", "**/test/**"],
        message: "examples use only @hanse/client (and /protocol): what a separately deployed service has",
      },
    ],
  ),
  { ...layer(["src/commands/**"], [edifactThroughIndex, clientThroughExports]), ignores: ["**/*.test.ts"] },
  {
    files: ["src/modules/*/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!\\.\\.)[^/]+/(?!index\\.js$).+",
              message: "modules reach each other only through index.ts",
            },
            edifactThroughIndex,
            clientThroughExports,
          ],
        },
      ],
    },
  },
  // A module split into parts (exchange/inbox, …): parts reach each other, and other modules, only
  // through their index.ts (this entry replaces the one above for files in a part).
  {
    files: ["src/modules/*/*/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?!\\.\\.)[^/]+/(?!index\\.js$).+",
              message: "the parts of a module reach each other only through their index.ts",
            },
            {
              regex: "^\\.\\./\\.\\./(?!\\.\\.)[^/]+/(?!index\\.js$).+",
              message: "modules reach each other only through index.ts",
            },
            edifactThroughIndex,
            clientThroughExports,
          ],
        },
      ],
    },
  },
);
