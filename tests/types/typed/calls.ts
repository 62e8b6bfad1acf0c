// An app with its kinds declared: the calls below compile, and each line after a
// `@ts-expect-error` must fail to (tsc reports a directive that catches nothing).
import {
  enqueue,
  enqueueAndWait,
  enqueueWorkflow,
  getJob,
  listJobs,
  onJobState,
  runLocal,
  runScheduleNow,
  spawnAwaitable,
  spawnLocal,
  syncIfDue,
  syncNow,
  watchJob,
  type JobKindName,
} from "tauri-plugin-jobs-api";

export async function rightCalls(): Promise<void> {
  const sized = await enqueueAndWait("thumbnail", { path: "a.png", width: 256 });
  const bytes: number = sized.bytes;
  const { id } = await enqueue("thumbnail", { path: "b.png", width: 64, quality: null });
  const again = await watchJob(id, (percent) => void percent);
  const path: string = again.path;
  const index: string = await enqueueAndWait("reindex", null);
  const nothing: null = await enqueueAndWait("embed", 7);
  // An id read from elsewhere (a URL, storage) says no kind: the caller names the type.
  const other = await watchJob<Sized2>(12);
  const run = await runLocal("export", 500, { onProgress: (percent) => void percent });
  const exported: string = await run.result;
  const awaited: string = await spawnAwaitable("export", 10);
  const localId: string = await spawnLocal("export", 10);
  await syncNow("github/me/notifications");
  await syncIfDue("mail/alice/inbox", "focus");
  await runScheduleNow("nightly");
  await enqueueWorkflow({
    parent: { kind: "reindex" },
    pieces: [1, 2, 3].map((message) => ({ kind: "embed" as const, payload: message })),
    then: [{ kind: "thumbnail", payload: { path: "c.png", width: 1 } }],
  });
  const job = await getJob(1);
  if (job !== null && job.kind === "thumbnail") {
    const width: number = job.payload.width;
    const result: Sized2 | null = job.result;
    void width, void result;
  }
  for (const listed of await listJobs({ kind: "embed" })) {
    if (listed.kind === "embed") {
      const message: number = listed.payload;
      void message;
    }
  }
  await onJobState(async (change) => {
    if (change.kind === "thumbnail" && change.to === "succeeded") {
      const done = await watchJob(change.id);
      const shown: number = done.bytes;
      void shown;
    }
  });
  const kinds: JobKindName[] = ["thumbnail", "reindex", "embed"];
  void bytes, void path, void index, void nothing, void other, void exported, void awaited, void localId, void kinds;
}

type Sized2 = { path: string; bytes: number };

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error a kind name with a typo
  await enqueue("thumbnial", { path: "a.png", width: 1 });
  // @ts-expect-error once kinds are declared, a result's type is the handler's, not the caller's
  await enqueueAndWait<string>("thumbnail", { path: "a.png", width: 1 });
  // @ts-expect-error a kind name with a typo, awaited
  await enqueueAndWait("thumbnial", { path: "a.png", width: 1 });
  // @ts-expect-error a payload missing a field
  await enqueue("thumbnail", { path: "a.png" });
  // @ts-expect-error a payload field of the wrong type
  await enqueueAndWait("thumbnail", { path: "a.png", width: "wide" });
  // @ts-expect-error a payload of another kind
  await enqueueAndWait("embed", "seven");
  // @ts-expect-error a payload where the kind takes none
  await enqueue("reindex", { all: true });
  // @ts-expect-error the result used as what it is not
  const bytes: string = (await enqueueAndWait("thumbnail", { path: "a.png", width: 1 })).bytes;
  const { id } = await enqueue("embed", 1);
  // @ts-expect-error a watched job's result used as what it is not
  const result: string = await watchJob(id);
  // @ts-expect-error an unknown local kind
  await runLocal("exprot", 1);
  // @ts-expect-error local args of the wrong type
  await runLocal("export", "all");
  // @ts-expect-error a local result used as what it is not
  const rows: number = await (await runLocal("export", 1)).result;
  // @ts-expect-error an unknown local kind, awaited
  await spawnAwaitable("exprot", 1);
  // @ts-expect-error an unknown local kind, spawned
  await spawnLocal("exprot", 1);
  // @ts-expect-error an unknown sync target
  await syncNow("github/me/notifcations");
  // @ts-expect-error a target the pattern does not match
  await syncIfDue("mail/alice/outbox");
  // @ts-expect-error an unknown schedule
  await runScheduleNow("nighty");
  await enqueueWorkflow({
    parent: { kind: "reindex" },
    // @ts-expect-error a workflow step of an unknown kind
    pieces: [{ kind: "embedd", payload: 1 }],
  });
  await enqueueWorkflow({
    // @ts-expect-error a workflow step whose payload is not its kind's
    parent: { kind: "embed", payload: "one" },
  });
  const job = await getJob(1);
  if (job !== null && job.kind === "embed") {
    // @ts-expect-error a narrowed job's payload used as what it is not
    const message: string = job.payload;
    void message;
  }
  await onJobState((change) => {
    // @ts-expect-error a kind no handler has
    if (change.kind === "resize") return;
  });
  void bytes, void result, void rows;
}
