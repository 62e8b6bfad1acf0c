// The example page follows the plugin's events: a short polling loop would keep the
// app's process busy for nothing (and show others the wrong way to use the plugin).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { describe, expect, it } from "vitest";

// Vitest runs from the repository root.
const page = readFileSync(resolve("examples/tauri-app/src-ui/main.ts"), "utf8");

describe("the example page", () => {
  it("does not poll", () => {
    expect(page).not.toMatch(/setInterval\s*\(/);
  });

  it("uses no timer shorter than 100 ms", () => {
    for (const match of page.matchAll(/setTimeout\([\s\S]*?,\s*(\d+)\s*\)/g)) {
      expect(Number(match[1])).toBeGreaterThanOrEqual(100);
    }
  });
});
