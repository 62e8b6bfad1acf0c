// Builds the webview package: guest-js/index.ts and guest-js/inspector.ts into dist-js/
// (ESM, CommonJS and type declarations), and api-iife.js, the same API as one script that sets
// `window.__TAURI__.jobs` (and `window.__TAURI_PLUGIN_JOBS__`), which Tauri injects into
// apps with `withGlobalTauri` (build.rs names it). The example app's page is built by
// rollup.example.config.js.
import resolve from "@rollup/plugin-node-resolve";
import typescript from "@rollup/plugin-typescript";

export default [
  {
    // Two entry points: the API, and the inspector (`tauri-plugin-jobs-api/inspector`),
    // which imports the API's chunk rather than a copy of it.
    input: { index: "guest-js/index.ts", inspector: "guest-js/inspector.ts" },
    output: [
      { dir: "dist-js", format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
      { dir: "dist-js", format: "cjs", entryFileNames: "[name].cjs", chunkFileNames: "[name]-[hash].cjs" },
    ],
    plugins: [typescript({ tsconfig: "./tsconfig.build.json", declaration: true, declarationDir: "dist-js" })],
    external: [/^@tauri-apps\/api/],
  },
  {
    input: "guest-js/index.ts",
    output: {
      file: "api-iife.js",
      format: "iife",
      name: "__TAURI_PLUGIN_JOBS__",
      footer:
        "if ('__TAURI__' in window) Object.defineProperty(window.__TAURI__, 'jobs', { value: __TAURI_PLUGIN_JOBS__ });",
    },
    plugins: [
      resolve(),
      typescript({ tsconfig: "./tsconfig.build.json", declaration: false, declarationDir: undefined, outDir: "." }),
    ],
  },
];
