// Builds the example app's page script into examples/tauri-app/ui/main.js, which the
// app embeds. Apart from the package's own build, so that building the package (on
// install, through `prepare`) never touches the example.
import resolve from "@rollup/plugin-node-resolve";
import typescript from "@rollup/plugin-typescript";

export default {
  input: "examples/tauri-app/src-ui/main.ts",
  output: { file: "examples/tauri-app/ui/main.js", format: "esm" },
  // A type error fails the build: a kind name with a typo or a payload of the wrong
  // shape (the kinds' declarations in src-ui/jobs-kinds.d.ts) stops it.
  plugins: [resolve(), typescript({ tsconfig: "./tsconfig.example.json", noEmitOnError: true })],
};
