// @ts-check
import js from "@eslint/js";
import astro from "eslint-plugin-astro";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/**
 * The workspace packages the project runs on this machine only (packages/local-stack/README.md,
 * packages/static-host/README.md) are imported by name, through their one entry: a path into
 * one (`../packages/local-stack/src/stack.ts`) or a deep import is an error outside it.
 */
const PACKAGE_INTERNALS = [
  {
    regex: "^\\.{1,2}/(?:.*/)?local-stack(?:/|$)|^@advisor-accelerator/local-stack/",
    message:
      "Use the local stack through its entry, @advisor-accelerator/local-stack (packages/local-stack/index.ts): its files are internal.",
  },
  {
    regex: "^\\.{1,2}/(?:.*/)?static-host(?:/|$)|^@advisor-accelerator/static-host/",
    message: "Import the static host by its name, @advisor-accelerator/static-host.",
  },
];
/** What production runs (the site, the functions) never loads the stand-ins, not even their entry. */
const NO_STAND_INS = [
  {
    regex:
      "^@advisor-accelerator/(?:local-stack|static-host)(?:/|$)|^\\.{1,2}/(?:.*/)?(?:local-stack|static-host)(?:/|$)",
    message:
      "The site and the functions run in production, which has no stand-ins: nothing here imports packages/local-stack/ or packages/static-host/.",
  },
];

export default tseslint.config(
  {
    ignores: ["dist/", "dist-local/", "dist-bench/", ".astro/", "node_modules/", "test-results/", "playwright-report/"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...astro.configs.recommended,
  {
    files: ["**/*.tsx"],
    plugins: { "react-hooks": reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ["scripts/**/*.ts", "tools/**/*.ts", "src/integrations/**/*.ts", "*.config.*", "tests/**/*.ts"],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-non-null-assertion": "off",
    },
  },
  // Who may import whom (packages/shared/README.md): the site and the functions share code only
  // through packages/shared/, which depends on nothing; neither loads a stand-in; everything else
  // uses a local package only through its entry. A later block that sets no-restricted-imports for
  // the same files replaces these patterns: add to them instead.
  {
    files: ["src/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.{1,2}/(?:.*/)?functions(?:/|$)",
              message: "src/ imports nothing from functions/: what both use lives in packages/shared/.",
            },
            {
              regex: "^\\.{1,2}/(?:.*/)?integrations(?:/|$)",
              message:
                "src/ imports no build integration (src/integrations/ runs in Node after the build): put shared logic in src/lib/ or packages/shared/.",
            },
            ...NO_STAND_INS,
          ],
        },
      ],
    },
  },
  {
    files: ["functions/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.{1,2}/(?:.*/)?src(?:/|$)",
              message:
                "functions/ import nothing from src/, which is not deployed with them: share through packages/shared/.",
            },
            ...NO_STAND_INS,
          ],
        },
      ],
    },
  },
  {
    files: ["packages/shared/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!\\./)|/\\.\\.(?:/|$)",
              message:
                "packages/shared/ imports only its own files (./x.ts): no npm package, no Node, Deno or browser module, nothing outside it.",
            },
          ],
        },
      ],
    },
  },
  {
    // Everything else (tests, tools, scripts, configs, the packages themselves), but the local
    // stack's own files, which import each other freely.
    files: ["**/*.{js,mjs,cjs,ts,tsx,mts,astro}"],
    ignores: ["src/**", "functions/**", "packages/shared/**", "packages/local-stack/**"],
    rules: { "no-restricted-imports": ["error", { patterns: PACKAGE_INTERNALS }] },
  },
  {
    // The stack stands in for the services the project calls; the project's tooling and scripts
    // run it, never the other way round (it runs a script as a process, as a deploy would).
    files: ["packages/local-stack/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.\\./(?:\\.\\./)*(?:tools|scripts)(?:/|$)",
              message: "packages/local-stack/ imports nothing from the project's tools/ or scripts/.",
            },
          ],
        },
      ],
    },
  },
  {
    // no-restricted-imports does not see `await import(…)`: the same rule for dynamic imports.
    files: ["**/*.{js,mjs,cjs,ts,tsx,mts,astro}"],
    ignores: ["packages/local-stack/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "ImportExpression[source.value=/^\\.{1,2}\\u002F(?:.*\\u002F)?(?:local-stack|static-host)(?:\\u002F|$)|^@advisor-accelerator\\u002F(?:local-stack|static-host)\\u002F/]",
          message: "Import a local package through its entry, by its name (@advisor-accelerator/local-stack).",
        },
      ],
    },
  },
);
