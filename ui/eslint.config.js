// ESLint for the UI: typescript-eslint's recommended rules and React's rules of hooks (with the
// React Compiler checks that come with eslint-plugin-react-hooks 7). Formatting is Prettier's job.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig(
  // bindings.ts is generated from the Rust commands and types (see its header).
  { ignores: ["dist/", "node_modules/", "src/ipc/bindings.ts"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["src/**/*.{ts,tsx}"],
    extends: [reactHooks.configs.flat.recommended],
    languageOptions: { globals: globals.browser },
    rules: {
      // Warnings would pass `npm run lint` unseen: a missing dependency is an error here.
      "react-hooks/exhaustive-deps": "error",
    },
  },
  // The UI tests run in Node and hand some functions to the page, which run in the browser.
  { files: ["e2e/**/*.mjs"], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
  { files: ["*.config.{js,ts}"], languageOptions: { globals: globals.node } },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
);
