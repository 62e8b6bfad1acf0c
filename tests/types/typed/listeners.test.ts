// The narrowed listeners at run time, in the fixture app whose kinds kinds.d.ts
// declares (tsc checks this file against them too: `npm run typecheck`).
import { clearMocks } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";

import { enqueue, getJob, onJobState, watchJob, type JobIdOf } from "tauri-plugin-jobs-api";
import { backend, jobRecord, jobsEvent, tick } from "../../../guest-js/test-plugin";
import type { Sized } from "./app-types";

afterEach(() => clearMocks());

describe("typed kinds", () => {
  it("a state change narrowed by kind gives its job's typed result", async () => {
    const sized: Sized = { path: "a.png", bytes: 2048 };
    backend((cmd) => {
      if (cmd === "plugin:jobs|get_job") return jobRecord({ id: 9, kind: "thumbnail", status: "succeeded", result: sized });
      if (cmd === "plugin:jobs|get_workflow") return null;
      return null;
    });
    const seen: number[] = [];
    const unlisten = await onJobState(async (change) => {
      if (change.kind !== "thumbnail" || change.to !== "succeeded") return;
      const result = await watchJob(change.id);
      seen.push(result.bytes);
    });
    await jobsEvent({ type: "jobStateChanged", id: 8, kind: "embed", from: "running", to: "succeeded", attempt: 1, at: 1 });
    await jobsEvent({ type: "jobStateChanged", id: 9, kind: "thumbnail", from: "running", to: "succeeded", attempt: 1, at: 2 });
    for (let i = 0; i < 5 && seen.length === 0; i++) await tick();
    unlisten();
    expect(seen).toEqual([2048]);
  });

  it("a job narrowed by kind has its payload's and result's fields", async () => {
    backend(() => jobRecord({ id: 4, kind: "thumbnail", status: "succeeded", payload: { path: "b.png", width: 64 }, result: { path: "b.png", bytes: 10 } }));
    const job = await getJob(4);
    expect(job?.kind).toBe("thumbnail");
    if (job?.kind === "thumbnail") {
      expect(job.payload.width).toBe(64);
      expect(job.result?.bytes).toBe(10);
    }
  });

  it("an enqueued id remembers its kind and is the number the plugin gave", async () => {
    const calls = backend(() => ({ id: 12, created: true, outcome: "created" }));
    const { id } = await enqueue("embed", 3);
    const typed: JobIdOf<"embed"> = id;
    expect(typed).toBe(12);
    expect(calls[0]).toEqual({ cmd: "plugin:jobs|enqueue", args: expect.objectContaining({ kind: "embed", payload: 3 }) });
  });
});
