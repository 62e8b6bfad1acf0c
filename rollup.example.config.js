// Builds the example app's page script into examples/tauri-app/ui/main.js, which the
// app embeds. Apart from the package's own build, so that building the package (on
// install, through `prepare`) never touches the example.
import resolve from "@rollup/plugin-node-resolve";
import typescript from "@rollup/plugin-typescript";

export default {
  input: "examples/tauri-app/src-ui/main.ts",
  output: { file: "examples/tauri-app/ui/main.js", format: "esm" },
  plugins: [resolve(), typescript({ tsconfig: "./tsconfig.example.json" })],
};
