// The app's life in the real webview: what the mock runtime cannot show, since it
// sends none of the events a real one sends before `Ready`. Each test restarts the
// demo (tauri-driver starts a new process per session) with the command line of
// `src/lifecycle.rs`: where the plugin is added, how long the app's own setup takes.
//
// - Start order: jobs queued before a restart, whose handler reads what the app's
//   setup manages, run after it on their first attempt: the plugin added on the
//   builder, from setup, and while the app runs; setup made slow (1.5 s) so that a
//   runner started early would meet it unfinished.
// - Quit: the last window closed while jobs run: one that ends within the grace (5 s)
//   ends in that process, before it exits; one that would not is given back and runs
//   at the next start.
// - Update: `prepare_for_update` gives a running job back and checkpoints raw.db; the
//   next start runs it.

import { call, alive, ended, sleep } from "./process.mjs";

const SLOW_SETUP_MS = 1500;

export async function lifecycleTests({ session, test, until }) {
  for (const where of ["builder", "setup", "running"]) {
    // Queued by one start of the app, due a few seconds later, when it has gone.
    let browser = await session();
    const ids = await call(browser, "enqueue_probe", { kind: "after-setup", count: 3, ms: 0, delayMs: 4000 });
    const before = Date.now();
    await browser.deleteSession();
    await sleep(Math.max(0, before + 4500 - Date.now()));
    // The page of a plugin added while the app runs cannot start before it is there:
    // no wait for the page then.
    browser = await session({ args: [`--plugin-at=${where}`, `--slow-setup-ms=${SLOW_SETUP_MS}`], ready: where !== "running" });
    await test(`jobs queued before a restart run after the app's setup (plugin added ${{ builder: "on the builder", setup: "from setup", running: "while the app runs" }[where]})`, browser, async () => {
      const jobs = await ended(browser, until, "after-setup", ids);
      const pid = await call(browser, "pid");
      for (const job of jobs) {
        if (job.status !== "succeeded" || job.attempts !== 1) {
          throw new Error(`job ${job.id}: ${job.status} after ${job.attempts} attempts (${job.error ?? ""})`);
        }
        if (!String(job.result).includes(`plugin at ${where}, pid ${pid}`)) {
          throw new Error(`job ${job.id} ran elsewhere: ${job.result}`);
        }
      }
    });
    await browser.deleteSession().catch(() => {});
  }

  // Quit: the last window closed while two jobs run.
  let browser = await session();
  let quickId;
  let longId;
  let firstPid;
  await test("closing the last window lets a running job finish within the grace, and gives back one that would not", browser, async () => {
    firstPid = await call(browser, "pid");
    [quickId] = await call(browser, "enqueue_probe", { kind: "slow", count: 1, ms: 1500, delayMs: 0 });
    [longId] = await call(browser, "enqueue_probe", { kind: "slow", count: 1, ms: 60_000, delayMs: 0 });
    await until(browser, "both to run", async () => {
      const jobs = await call(browser, "jobs_of_kind", { kind: "slow" });
      return [quickId, longId].every((id) => jobs.find((job) => job.id === id)?.status === "running");
    });
    await call(browser, "close_main_window");
    const closed = Date.now();
    // The app ends on its own (the quit and its grace), bounded; only then is the
    // session let go (deleting it earlier would end the app another way).
    await until(browser, "the closed app to exit", async () => !alive(firstPid), 30_000);
    const exited = Date.now();
    await browser.deleteSession().catch(() => {});
    browser = await session();
    const [quick] = await ended(browser, until, "slow", [quickId]);
    if (quick.status !== "succeeded" || !String(quick.result).includes(`pid ${firstPid}`)) {
      throw new Error(`the quick job was not finished by the closing app: ${JSON.stringify(quick)}`);
    }
    // Given back at the quit (the grace ran out), it runs again in this process, its
    // attempt not counted.
    await until(browser, "the long job to run again", async () => {
      const long = (await call(browser, "jobs_of_kind", { kind: "slow" })).find((job) => job.id === longId);
      return long?.status === "running" && long.attempts === 1;
    });
    console.log(`     the closed app exited ${exited - closed} ms after its window closed (the grace: 5 s)`);
  });
  // Update: the long job is given back by prepare_for_update, the file checkpointed.
  await test("prepare_for_update gives a running job back and checkpoints raw.db; the next start runs it", browser, async () => {
    const prepared = await call(browser, "prepare_update", { graceMs: 300 });
    if (!prepared.released.includes(longId)) throw new Error(`released ${JSON.stringify(prepared.released)}`);
    if (!prepared.checkpointed) throw new Error("raw.db was not checkpointed");
    const long = (await call(browser, "jobs_of_kind", { kind: "slow" })).find((job) => job.id === longId);
    if (long.status !== "queued") throw new Error(`the released job is ${long.status}`);
    await browser.deleteSession().catch(() => {});
    browser = await session();
    await until(browser, "the released job to run after the restart", async () => {
      const again = (await call(browser, "jobs_of_kind", { kind: "slow" })).find((job) => job.id === longId);
      return again?.status === "running" && again.attempts === 1;
    });
    // Done with it: the next tests need no minute-long job.
    await call(browser, "cancel_job", { id: longId });
  });
  await browser.deleteSession().catch(() => {});
}
