// When the window closes, in the real webview: the demo's `upload` kind finishes
// before the app quits (`Builder::finish_before_quit`). Each test starts the demo
// afresh (tauri-driver starts a process per session) and watches the process itself:
// the hold is what keeps it alive after its window closed.
//
// - The last window closed while two uploads (one at a time) are to run: the process
//   stays until both have finished in it, then exits on its own.
// - The app's own quit (`app.exit`) held while an upload runs; a second quit ends it
//   at once, the upload given back (it runs again at the next start).
// - A deadline (`--quit-deadline-ms`) ends a held quit, what is left given back.
// - kill -9 while a quit is held loses nothing: the next start runs the upload.
// - After a reboot (kill -9 while uploads run), the app started at login (`--hidden`)
//   finishes them with no window shown and quits.

import { call, alive, ended, sleep } from "./process.mjs";

// The uploads of `ids` as they are now.
async function uploads(browser, ids) {
  return (await call(browser, "jobs_of_kind", { kind: "upload" })).filter((job) => ids.includes(job.id));
}

// Waits (bounded) for process `pid` to end; how long it took, in ms.
async function exitOf(browser, until, pid, what, timeout = 30_000) {
  const from = Date.now();
  await until(browser, what, async () => !alive(pid), timeout);
  return Date.now() - from;
}

export async function closingTests({ session, test, until }) {
  // 1. The last window closed while uploads are to run.
  let browser = await session();
  await test("closing the last window holds the quit until the uploads are done, then the app exits", browser, async () => {
    const pid = await call(browser, "pid");
    const ids = await call(browser, "enqueue_probe", { kind: "upload", count: 2, ms: 2500, delayMs: 0 });
    await until(browser, "the first upload to run", async () => (await uploads(browser, ids)).some((job) => job.status === "running"));
    await call(browser, "close_main_window");
    const closed = Date.now();
    // Past the grace an exit would give (5 s) the process is still there: the second
    // upload runs after the first (one at a time), about 5 s in all.
    await sleep(1500);
    if (!alive(pid)) throw new Error("the app exited with uploads left to run");
    await until(browser, "the app to exit once the uploads are done", async () => !alive(pid), 30_000);
    const held = Date.now() - closed;
    await browser.deleteSession().catch(() => {});
    browser = await session();
    for (const job of await ended(browser, until, "upload", ids)) {
      if (job.status !== "succeeded" || job.attempts !== 1 || !String(job.result).includes(`pid ${pid}`)) {
        throw new Error(`upload ${job.id} was not finished by the closing app: ${JSON.stringify(job)}`);
      }
    }
    console.log(`     the quit was held ${held} ms, until both uploads (2.5 s each, one at a time) were done`);
  });
  await browser.deleteSession().catch(() => {});

  // 2. The app's own quit, held; a second quit ends it at once.
  browser = await session();
  await test("the app's quit is held while an upload runs; a second quit ends it at once and gives the upload back", browser, async () => {
    const pid = await call(browser, "pid");
    const [id] = await call(browser, "enqueue_probe", { kind: "upload", count: 1, ms: 60_000, delayMs: 0 });
    await until(browser, "the upload to run", async () => (await uploads(browser, [id]))[0]?.status === "running");
    await call(browser, "quit_app");
    // Held: the window stays (the app hid nothing) and says what it finishes.
    await until(browser, "the quit to be held", async () => String(await call(browser, "finishing")).includes("upload 1"));
    if (!alive(pid)) throw new Error("the first quit was not held");
    await call(browser, "quit_app");
    const took = await exitOf(browser, until, pid, "the second quit to end the app", 10_000);
    // No grace: the upload is given back at once (a grace would be 5 s).
    if (took > 4000) throw new Error(`the second quit took ${took} ms`);
    await browser.deleteSession().catch(() => {});
    browser = await session();
    await until(browser, "the upload to run again after the restart", async () => {
      const [job] = await uploads(browser, [id]);
      return job?.status === "running" && job.attempts === 1;
    });
    await call(browser, "cancel_job", { id });
    console.log(`     the second quit ended the app ${took} ms after it was asked`);
  });
  await browser.deleteSession().catch(() => {});

  // 3. A deadline.
  browser = await session({ args: ["--quit-deadline-ms=2000"] });
  await test("a quit's deadline ends the hold and gives back what is left", browser, async () => {
    const pid = await call(browser, "pid");
    const [id] = await call(browser, "enqueue_probe", { kind: "upload", count: 1, ms: 60_000, delayMs: 0 });
    await until(browser, "the upload to run", async () => (await uploads(browser, [id]))[0]?.status === "running");
    await call(browser, "close_main_window");
    const took = await exitOf(browser, until, pid, "the deadline to end the app");
    // The deadline (2 s), then the grace any exit gives (5 s).
    if (took < 1500) throw new Error(`the app exited ${took} ms after its window closed, before the deadline`);
    await browser.deleteSession().catch(() => {});
    browser = await session();
    await until(browser, "the upload to run again", async () => {
      const [job] = await uploads(browser, [id]);
      return job?.status === "running" && job.attempts === 1;
    });
    await call(browser, "cancel_job", { id });
    console.log(`     a 2 s deadline ended the app ${took} ms after its window closed (with the 5 s grace)`);
  });
  await browser.deleteSession().catch(() => {});

  // 4. kill -9 while a quit is held.
  browser = await session();
  await test("kill -9 while a quit is held loses nothing: the next start runs the upload", browser, async () => {
    const pid = await call(browser, "pid");
    const [id] = await call(browser, "enqueue_probe", { kind: "upload", count: 1, ms: 1500, delayMs: 0 });
    const [later] = await call(browser, "enqueue_probe", { kind: "upload", count: 1, ms: 200, delayMs: 0 });
    await until(browser, "the upload to run", async () => (await uploads(browser, [id]))[0]?.status === "running");
    await call(browser, "close_main_window");
    await sleep(600);
    if (!alive(pid)) throw new Error("the quit was not held");
    process.kill(pid, "SIGKILL");
    await exitOf(browser, until, pid, "the killed app to end", 10_000);
    await browser.deleteSession().catch(() => {});
    browser = await session();
    for (const job of await ended(browser, until, "upload", [id, later], 30_000)) {
      if (job.status !== "succeeded") throw new Error(`upload ${job.id}: ${JSON.stringify(job)}`);
    }
  });
  await browser.deleteSession().catch(() => {});

  // 5. A reboot, then a start at login.
  browser = await session();
  await test("after a reboot, the app started hidden finishes the uploads left and quits", browser, async () => {
    const pid = await call(browser, "pid");
    const ids = await call(browser, "enqueue_probe", { kind: "upload", count: 2, ms: 1500, delayMs: 0 });
    await until(browser, "an upload to run", async () => (await uploads(browser, ids)).some((job) => job.status === "running"));
    // The machine goes down: nothing is given back.
    process.kill(pid, "SIGKILL");
    await exitOf(browser, until, pid, "the killed app to end", 10_000);
    await browser.deleteSession().catch(() => {});
    // At login: no page to wait for (the window is hidden), but its commands answer.
    browser = await session({ args: ["--hidden"], ready: false });
    let hidden;
    await until(browser, "the hidden app to answer", async () => {
      hidden = await call(browser, "pid").catch(() => undefined);
      return hidden !== undefined;
    });
    const took = await exitOf(browser, until, hidden, "the hidden app to finish and quit", 60_000);
    await browser.deleteSession().catch(() => {});
    browser = await session();
    for (const job of await ended(browser, until, "upload", ids)) {
      if (job.status !== "succeeded" || !String(job.result).includes(`pid ${hidden}`)) {
        throw new Error(`upload ${job.id} was not finished by the hidden start: ${JSON.stringify(job)}`);
      }
    }
    console.log(`     the hidden start finished the 2 uploads and quit ${took} ms after it answered`);
  });
  await browser.deleteSession().catch(() => {});
}
