// An app that declares no kinds: every call takes any name and any value, and a
// result's type is the caller's word, as before kinds could be typed.
import {
  enqueue,
  enqueueAndWait,
  enqueueWorkflow,
  getJob,
  runLocal,
  runScheduleNow,
  spawnAwaitable,
  spawnLocal,
  syncNow,
  watchJob,
  type Value,
} from "tauri-plugin-jobs-api";

export async function calls(): Promise<void> {
  const shown: string = await enqueueAndWait<string>("thumbnail", { path: "a.png", width: 256 });
  const value: Value = await enqueueAndWait("anything", [1, 2]);
  const { id } = await enqueue("resize", { width: 3 });
  const watched: Value = await watchJob(id);
  const rows: number = await watchJob<number>(id);
  const run = await runLocal<string>("export", 400, { onProgress: () => {} });
  const exported: string = await run.result;
  const noArgs = await runLocal("cleanup");
  const awaited: number = await spawnAwaitable<number>("count");
  const localId: string = await spawnLocal("cleanup");
  await syncNow("any/target/at-all");
  await runScheduleNow("whatever");
  await enqueueWorkflow({ parent: { kind: "import" }, pieces: [{ kind: "embed", payload: { id: 1 } }] });
  const job = await getJob(1);
  const kind: string | undefined = job?.kind;
  const payload: Value | undefined = job?.payload;
  // @ts-expect-error a payload must still be JSON
  await enqueue("resize", () => 3);
  void shown, void value, void watched, void rows, void exported, void noArgs, void awaited, void localId, void kind, void payload;
}
