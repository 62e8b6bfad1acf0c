import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "happy-dom",
    include: ["guest-js/**/*.test.ts", "examples/tauri-app/src-ui/**/*.test.ts"],
  },
});
