// Builds guest-js/index.ts into dist-js/ (ESM, CommonJS and type declarations), and
// the example app's page script into examples/tauri-app/ui/main.js.
import resolve from "@rollup/plugin-node-resolve";
import typescript from "@rollup/plugin-typescript";

export default [
  {
    input: "guest-js/index.ts",
    output: [
      { file: "dist-js/index.js", format: "esm" },
      { file: "dist-js/index.cjs", format: "cjs" },
    ],
    plugins: [typescript({ tsconfig: "./tsconfig.build.json", declaration: true, declarationDir: "dist-js" })],
    external: [/^@tauri-apps\/api/],
  },
  {
    input: "examples/tauri-app/src-ui/main.ts",
    output: { file: "examples/tauri-app/ui/main.js", format: "esm" },
    plugins: [
      resolve(),
      typescript({ tsconfig: "./tsconfig.example.json" }),
    ],
  },
];
