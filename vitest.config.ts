import { defineConfig } from "vitest/config";

export default defineConfig({
  // The typed fixture app (tests/types/typed) imports the package by its name.
  resolve: { alias: { "tauri-plugin-jobs-api": new URL("./guest-js/index.ts", import.meta.url).pathname } },
  test: {
    environment: "happy-dom",
    include: ["guest-js/**/*.test.ts", "examples/tauri-app/src-ui/**/*.test.ts", "tests/types/**/*.test.ts"],
  },
});
