// What the plugin writes for an app (see tests/typescript.rs): the app's kinds, with
// types the app's own bindings export.
import type { Thumbnail, Sized } from "./app-types";
declare module "tauri-plugin-jobs-api" {
  interface JobKinds {
    "thumbnail": { payload: Thumbnail; result: Sized };
    "reindex": { payload: null; result: string };
    "embed": { payload: number; result: null };
  }
  interface LocalKinds {
    "export": { args: number; result: string };
  }
  interface SyncTargets {
    "github/me/notifications": true;
    [target: `mail/${string}/inbox`]: true;
  }
  interface Schedules {
    "nightly": true;
  }
}
export {};
