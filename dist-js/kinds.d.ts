/**
 * The app's own kinds, as types: empty interfaces an app fills by module augmentation
 * (the plugin writes the augmentation from its registered handlers, see the guide's
 * "Typed kinds"), and the helpers every function of the package is generic over.
 * While an interface is empty, what it types falls back to `string` and `Value`, so an
 * app that declares nothing compiles as before.
 *
 * ```ts
 * declare module "tauri-plugin-jobs-api" {
 *   interface JobKinds {
 *     thumbnail: { payload: { path: string; width: number }; result: string };
 *   }
 * }
 * ```
 */
import type { Job, JobStateChanged, Value } from "./bindings";
/** Durable job kinds: each kind's `payload` (what its handler takes) and `result` (what it returns). */
export interface JobKinds {
}
/** Local job kinds the webview may start: each kind's `args` and `result`. */
export interface LocalKinds {
}
/** Sync targets (`connector/account/name`), each mapped to `true`; template literal keys for accounts added at run time. */
export interface SyncTargets {
}
/** Schedules by name, each mapped to `true`. */
export interface Schedules {
}
/** A durable job kind's name: one of {@link JobKinds}, or any string while it is empty. */
export type JobKindName = [keyof JobKinds] extends [never] ? string : Extract<keyof JobKinds, string>;
/** A durable job kind {@link JobKinds} declares. */
export type DeclaredJobKind = Extract<keyof JobKinds, string>;
/** `string` while {@link JobKinds} is empty, else `never`: the untyped calls' kind. */
export type UndeclaredJobKind = [keyof JobKinds] extends [never] ? string : never;
/** A local job kind's name: one of {@link LocalKinds}, or any string while it is empty. */
export type LocalKindName = [keyof LocalKinds] extends [never] ? string : Extract<keyof LocalKinds, string>;
/** A local job kind {@link LocalKinds} declares. */
export type DeclaredLocalKind = Extract<keyof LocalKinds, string>;
/** `string` while {@link LocalKinds} is empty, else `never`: the untyped calls' kind. */
export type UndeclaredLocalKind = [keyof LocalKinds] extends [never] ? string : never;
/** A sync target: one of {@link SyncTargets}, or any string while it is empty. */
export type SyncTargetName = [keyof SyncTargets] extends [never] ? string : Extract<keyof SyncTargets, string>;
/** A schedule's name: one of {@link Schedules}, or any string while it is empty. */
export type ScheduleName = [keyof Schedules] extends [never] ? string : Extract<keyof Schedules, string>;
/** What a durable job of kind `K` takes; `Value` for a kind not declared. */
export type PayloadOf<K> = K extends keyof JobKinds ? (JobKinds[K] extends {
    payload: infer P;
} ? P : Value) : Value;
/** What a durable job of kind `K` returns; `Value` for a kind not declared. */
export type ResultOf<K> = K extends keyof JobKinds ? (JobKinds[K] extends {
    result: infer R;
} ? R : Value) : Value;
/** What a local job of kind `K` takes; `Value` for a kind not declared. */
export type ArgsOf<K> = K extends keyof LocalKinds ? (LocalKinds[K] extends {
    args: infer A;
} ? A : Value) : Value;
/** What a local job of kind `K` returns; `Value` for a kind not declared. */
export type LocalResultOf<K> = K extends keyof LocalKinds ? (LocalKinds[K] extends {
    result: infer R;
} ? R : Value) : Value;
declare const kindBrand: unique symbol;
/**
 * A durable job's id that remembers the job's kind (a type only: at run time it is the
 * number), so `watchJob(id)` knows the result's type. Any number is accepted where an
 * id is.
 */
export type JobIdOf<K> = number & {
    readonly [kindBrand]?: K;
};
/** A durable job of kind `K`: the {@link Job} record with its payload and result typed. */
export type JobOf<K> = Omit<Job, "id" | "kind" | "payload" | "result"> & {
    id: JobIdOf<K>;
    kind: K;
    payload: PayloadOf<K>;
    result: ResultOf<K> | null;
};
/**
 * A durable job of any declared kind: narrow it by `kind` to type its payload and
 * result. A job of a kind the app no longer declares (a retired kind, another
 * build's) still arrives here: check `kind` before trusting the types.
 */
export type TypedJob = {
    [K in JobKindName]: JobOf<K>;
}[JobKindName];
/** A durable job's state change, narrowed by `kind` (its `id` then remembers the kind). */
export type TypedJobStateChanged = {
    [K in JobKindName]: Omit<JobStateChanged, "id" | "kind"> & {
        id: JobIdOf<K>;
        kind: K;
    };
}[JobKindName];
export {};
