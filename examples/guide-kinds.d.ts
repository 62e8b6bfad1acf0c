// The kinds the guide's webview snippets use (examples/tauri-app/src-ui/guide.ts), as
// the plugin declares an app's (docs/typed-kinds.md): what tsc checks them against.
declare module "../guest-js/index" {
  interface JobKinds {
    "thumbnail": { payload: { path: string; width: number }; result: string };
    "save": { payload: { draft: number }; result: null };
    "save-note": { payload: { id: number; text: string }; result: null };
  }
}

export {};
