// End-to-end tests of the demo app in a real WebKitGTK window, through tauri-driver
// and WebKitWebDriver. Run by scripts/e2e.sh, which starts Xvfb and tauri-driver.
// Prints "N passed, M failed"; on a failure, the page's state and a screenshot.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { remote } from "webdriverio";

import { closingTests } from "./closing.mjs";
import { lifecycleTests } from "./lifecycle.mjs";

const app = process.env.JOBS_DEMO_BIN;
const port = Number(process.env.TAURI_DRIVER_PORT ?? 4444);
const screenshot = process.env.SCREENSHOT_PATH;
const artifacts = process.env.E2E_ARTIFACTS ?? "target/e2e";
mkdirSync(artifacts, { recursive: true });

// A new process of the app, with `args` on its command line; `ready`: wait until its
// page has drawn everything.
async function session({ args = [], ready = true } = {}) {
  const browser = await remote({
    hostname: "127.0.0.1",
    port,
    logLevel: "warn",
    connectionRetryCount: 3,
    // Every command here answers within seconds; a request that does not (a window
    // gone) fails well before the run's own bound.
    connectionRetryTimeout: 30_000,
    capabilities: {
      browserName: "wry",
      "wdio:enforceWebDriverClassic": true,
      "tauri:options": { application: app, args },
    },
  });
  if (!ready) return browser;
  await browser.waitUntil(async () => (await browser.execute(() => document.body.dataset.ready)) === "true", {
    timeout: 30_000,
    timeoutMsg: "the page never became ready",
  });
  return browser;
}

const text = async (browser, id) => (await (await browser.$(`#${id}`)).getText()).trim();
const click = async (browser, id) => (await browser.$(`#${id}`)).click();
const until = (browser, what, check, timeout = 20_000) =>
  browser.waitUntil(check, { timeout, interval: 100, timeoutMsg: `timed out: ${what}` });

// A job's row, looked up afresh each time: rows are drawn again on every change.
const lastJob = (browser) => browser.execute(() => Number(document.body.dataset.lastJob));
const rowOf = (browser, id) =>
  browser.execute((id) => {
    const row = document.querySelector(`#jobs tr[data-id="${id}"]`);
    if (!row) return null;
    return {
      status: row.dataset.status,
      bar: row.querySelector("progress")?.value ?? null,
      attempts: row.children[4]?.textContent,
      note: row.children[5]?.textContent ?? "",
      actions: Array.from(row.querySelectorAll("button")).map((b) => b.dataset.action),
    };
  }, id);
const press = async (browser, id, action) => {
  await until(browser, `a ${action} button on job ${id}`, async () => (await rowOf(browser, id))?.actions.includes(action));
  await (await browser.$(`#jobs tr[data-id="${id}"] button[data-action="${action}"]`)).click();
};
const statusOf = async (browser, id) => (await rowOf(browser, id))?.status;
// Clicks a button that enqueues, and returns the new job's id once the page has it.
const enqueueWith = async (browser, button) => {
  const before = await lastJob(browser);
  await click(browser, button);
  await until(browser, `${button} to enqueue`, async () => (await lastJob(browser)) !== before);
  return lastJob(browser);
};

// The inspector draws into a shadow root: WebDriver's selectors stop at it, so these
// reach in with a script.
const inspectorRows = (browser) =>
  browser.execute(() => {
    const root = document.querySelector("jobs-inspector")?.shadowRoot;
    if (!root) return null;
    return Array.from(root.querySelectorAll("#jobs tr[data-id]")).map((tr) => ({
      id: Number(tr.dataset.id),
      status: tr.dataset.status,
      kind: tr.children[1].textContent,
    }));
  });
const inInspector = (browser, selector) =>
  browser.execute((selector) => {
    const root = document.querySelector("jobs-inspector")?.shadowRoot;
    const element = root?.querySelector(selector);
    return element ? { text: element.textContent, disabled: !!element.disabled } : null;
  }, selector);
const pressInInspector = async (browser, selector) => {
  await until(browser, `${selector} in the inspector`, async () => (await inInspector(browser, selector)) !== null);
  await browser.execute((selector) => document.querySelector("jobs-inspector").shadowRoot.querySelector(selector).click(), selector);
};
const filterInspector = (browser, id, value) =>
  browser.execute(
    (id, value) => {
      const control = document.querySelector("jobs-inspector").shadowRoot.querySelector(`#${id}`);
      control.value = value;
      control.dispatchEvent(new Event("change"));
    },
    id,
    value,
  );
const inspectorShot = process.env.INSPECTOR_SCREENSHOT_PATH;
const historyShot = process.env.HISTORY_SCREENSHOT_PATH;
const workflowShot = process.env.WORKFLOW_SCREENSHOT_PATH;

const results = [];
async function test(name, browser, body) {
  try {
    await body();
    results.push([name, true]);
    console.log(`ok   ${name}`);
  } catch (error) {
    results.push([name, false]);
    console.log(`FAIL ${name}: ${error.message}`);
    try {
      const state = await browser.execute(() => document.querySelector("main").innerText);
      console.log(`page state:\n${state}`);
      await browser.saveScreenshot(`${artifacts}/failure-${results.length}.png`);
    } catch {}
  }
}

function report() {
  const passed = results.filter(([, ok]) => ok).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  process.exit(passed === results.length ? 0 : 1);
}

// `E2E_ONLY=lifecycle scripts/e2e.sh`: the app's life alone (start order, quit, update,
// and the work that finishes before the app quits).
if (process.env.E2E_ONLY === "lifecycle") {
  await lifecycleTests({ session, test, until });
  await closingTests({ session, test, until });
  report();
}

let browser = await session();
let runsBefore = 0;

await test("withGlobalTauri puts the whole API on window.__TAURI__.jobs", browser, async () => {
  const kinds = await browser.execute(() => {
    const api = window.__TAURI__?.jobs;
    return api ? ["enqueue", "listJobs", "agentClaim", "onResync"].map((name) => typeof api[name]) : null;
  });
  if (JSON.stringify(kinds) !== JSON.stringify(["function", "function", "function", "function"])) {
    throw new Error(`window.__TAURI__.jobs: ${JSON.stringify(kinds)}`);
  }
});

await test("refresh syncs and the synced count changes", browser, async () => {
  await until(browser, "the start-up sync", async () => Number(await text(browser, "sync-runs")) >= 1);
  runsBefore = Number(await text(browser, "sync-runs"));
  await click(browser, "bump");
  await click(browser, "refresh");
  await until(browser, "a second run", async () => Number(await text(browser, "sync-runs")) > runsBefore);
  if (Number(await text(browser, "sync-changed")) < 1) throw new Error("no changed items shown");
  if (!(await text(browser, "sync-health")).startsWith("healthy")) throw new Error("not healthy");
});

await test("an export reaches 100% with a bounded number of progress events and shows what it returned", browser, async () => {
  await click(browser, "export-start");
  await until(browser, "the export to succeed", async () => (await text(browser, "export-state")) === "succeeded", 60_000);
  const value = await (await browser.$("#export-progress")).getProperty("value");
  const events = Number(await text(browser, "export-events"));
  if (value !== 100) throw new Error(`progress bar at ${value}`);
  if (events < 2 || events > 101) throw new Error(`${events} progress events`);
  const returned = await text(browser, "export-result");
  if (returned !== "exported 400 rows") throw new Error(`returned ${JSON.stringify(returned)}`);
});

await test("cancelling an export midway ends it cancelled", browser, async () => {
  await click(browser, "export-start");
  await until(browser, "progress to start", async () => (await (await browser.$("#export-progress")).getProperty("value")) >= 10);
  await click(browser, "export-cancel");
  await until(browser, "the export to be cancelled", async () => (await text(browser, "export-state")) === "cancelled");
  const value = await (await browser.$("#export-progress")).getProperty("value");
  if (value >= 100) throw new Error("it finished instead");
});

await test("durable jobs run with live states", browser, async () => {
  await click(browser, "enqueue");
  await until(browser, "three rows", async () => (await browser.$$("#jobs tr")).length >= 3);
  // The first jobs of a raw.db of the run's own (the schedule may have added one).
  if ((await lastJob(browser)) > 4) throw new Error(`job ids from an earlier run: ${await lastJob(browser)}`);
  await until(browser, "a job to succeed", async () => (await text(browser, "jobs")).includes("succeeded"), 30_000);
});

await test("after more reloads than a webview may hold subscriptions, the page still hears every change", browser, async () => {
  // Each page subscribes once; a new page ends the old page's subscriptions, or the
  // seventeenth would be refused.
  for (let reload = 0; reload < 18; reload++) {
    await browser.refresh();
    await until(browser, `the page ready after reload ${reload + 1}`, async () =>
      (await browser.execute(() => document.body.dataset.ready)) === "true",
    );
  }
  const id = await enqueueWith(browser, "enqueue-urgent");
  await until(browser, "the job to succeed, live", async () => (await statusOf(browser, id)) === "succeeded", 30_000);
});

await test("a durable job's progress bar moves and reaches 100 %", browser, async () => {
  await enqueueWith(browser, "enqueue");
  const id = await enqueueWith(browser, "enqueue-urgent");
  let midway = false;
  await until(
    browser,
    "the job to succeed",
    async () => {
      const row = await rowOf(browser, id);
      if (row?.status === "running" && row.bar > 0 && row.bar < 100) {
        if (!midway && screenshot) await browser.saveScreenshot(screenshot);
        midway = true;
      }
      return row?.status === "succeeded";
    },
    30_000,
  );
  const row = await rowOf(browser, id);
  if (row.bar !== 100) throw new Error(`bar at ${row.bar}`);
  if (!midway) throw new Error("never saw the bar between 0 and 100 while it ran");
});

await test("a failed job retried now succeeds, and a finished one can be deleted", browser, async () => {
  const id = await enqueueWith(browser, "enqueue-fails-once");
  await until(browser, "the job to fail", async () => (await statusOf(browser, id)) === "failed", 30_000);
  if (!(await rowOf(browser, id)).note.includes("502")) throw new Error("no error shown");
  const failed = Number(await text(browser, "count-failed"));
  await press(browser, id, "retry");
  await until(browser, "the retry to succeed", async () => (await statusOf(browser, id)) === "succeeded", 30_000);
  const row = await rowOf(browser, id);
  if (row.attempts !== "2/2") throw new Error(`attempts ${row.attempts}`);
  if (Number(await text(browser, "count-failed")) !== failed - 1) throw new Error("the failed count did not drop");
  await press(browser, id, "delete");
  await until(browser, "the row to go", async () => (await rowOf(browser, id)) === null);
});

await test("a job waiting out its backoff shows when it retries, and runs at once on Retry", browser, async () => {
  const id = await enqueueWith(browser, "enqueue-flaky");
  await until(browser, "a retry countdown", async () => (await rowOf(browser, id))?.note.includes("retries in"), 30_000);
  await press(browser, id, "retry");
  await until(browser, "the second attempt", async () => (await rowOf(browser, id))?.attempts === "2/4", 10_000);
});

await test("a paused kind does not start until resumed; a queued job can be cancelled", browser, async () => {
  await click(browser, "kind-pause");
  await until(browser, "the kind to show paused", async () => (await text(browser, "kind-state")) === "paused");
  const kept = await enqueueWith(browser, "enqueue-urgent");
  const cancelled = await enqueueWith(browser, "enqueue-urgent");
  await press(browser, cancelled, "cancel");
  await until(browser, "the cancel", async () => (await statusOf(browser, cancelled)) === "cancelled");
  await browser.pause(2500);
  if ((await statusOf(browser, kept)) !== "queued") throw new Error("a job of a paused kind started");
  await click(browser, "kind-pause");
  await until(browser, "the job to run once resumed", async () => (await statusOf(browser, kept)) === "succeeded", 30_000);
});

await test("the schedule shows its zone, runs now, and pauses and resumes", browser, async () => {
  const id = await enqueueWith(browser, "schedule-run");
  await until(browser, "a last run", async () => (await text(browser, "schedule-last")) !== "never");
  await until(browser, "the scheduled job to finish", async () => (await statusOf(browser, id)) === "succeeded", 30_000);
  const zone = await text(browser, "schedule-zone");
  if (!zone.startsWith("* * * * * (local")) throw new Error(`schedule shown as ${JSON.stringify(zone)}`);
  await click(browser, "schedule-pause");
  await until(browser, "the schedule paused", async () => (await text(browser, "schedule-next")) === "paused");
  await click(browser, "schedule-pause");
  await until(browser, "the schedule resumed", async () => (await text(browser, "schedule-next")) !== "paused");
});

await test("the inspector opens on the jobs of raw.db, with actions, and its first render is printed", browser, async () => {
  await click(browser, "open-inspector");
  const firstRender = () => browser.execute(() => document.querySelector("jobs-inspector")?.dataset.firstRenderMs ?? null);
  await until(browser, "the inspector's first render", async () => (await firstRender()) !== null);
  const rows = await inspectorRows(browser);
  console.log(`     inspector first render (jobs view, ${rows.length} rows): ${await firstRender()} ms`);
  if (rows.length < 3) throw new Error(`${rows.length} rows`);
  const mode = await inInspector(browser, ".mode");
  if (!mode.text.startsWith("admin")) throw new Error(`mode: ${mode.text}`);
  // Marks the element: the later tests check that nothing reloaded the page.
  await browser.execute(() => (document.querySelector("jobs-inspector").dataset.marked = "yes"));
});

await test("inspector filters narrow the table", browser, async () => {
  await filterInspector(browser, "filter-status", "succeeded");
  await until(browser, "only succeeded jobs", async () => {
    const rows = await inspectorRows(browser);
    return rows.length > 0 && rows.every((row) => row.status === "succeeded");
  });
  await filterInspector(browser, "filter-kind", "no-such-kind");
  await until(browser, "no rows", async () => (await inspectorRows(browser)).length === 0);
  await filterInspector(browser, "filter-kind", "");
  await filterInspector(browser, "filter-status", "");
  await until(browser, "every job again", async () => new Set((await inspectorRows(browser)).map((r) => r.status)).size > 1);
});

await test("a failed job's detail opens in the inspector and a retry from it succeeds, live", browser, async () => {
  const id = await enqueueWith(browser, "enqueue-fails-once");
  // Live: the new row appears and fails without anything reloading the inspector.
  await until(browser, "the job failed in the inspector", async () => (await inspectorRows(browser)).some((r) => r.id === id && r.status === "failed"), 30_000);
  await pressInInspector(browser, `#jobs tr[data-id="${id}"] button[data-action="open"]`);
  await until(browser, "the detail", async () => (await inInspector(browser, "#detail-status"))?.text === "failed");
  const error = (await inInspector(browser, "#detail-error")).text;
  if (!error.includes("502")) throw new Error(`last error shown: ${error}`);
  const payload = (await inInspector(browser, "#detail-payload")).text;
  if (!payload.includes("{")) throw new Error(`payload shown: ${payload}`);
  await pressInInspector(browser, '#detail button[data-action="retry"]');
  await until(browser, "the retried job to succeed in the detail", async () => (await inInspector(browser, "#detail-status"))?.text === "succeeded", 30_000);
  const marked = await browser.execute(() => document.querySelector("jobs-inspector").dataset.marked);
  if (marked !== "yes") throw new Error("the inspector was drawn again from scratch");
  if (inspectorShot) {
    await browser.execute(() => document.getElementById("inspector-panel").scrollIntoView());
    await browser.saveScreenshot(inspectorShot);
  }
});

let legacyJob = null;
await test("a job of a kind this build no longer runs shows in the inspector as waiting for a handler", browser, async () => {
  legacyJob = await browser.executeAsync((done) =>
    window.__TAURI__.core.invoke("enqueue_legacy_job").then(done, (e) => done(String(e))),
  );
  if (typeof legacyJob !== "number") throw new Error(`enqueue_legacy_job: ${legacyJob}`);
  const cell = `#jobs tr[data-id="${legacyJob}"] td.status`;
  await until(browser, "the legacy job in the inspector", async () =>
    ((await inInspector(browser, cell))?.text ?? "").includes("no handler here"),
  );
});

await test("a job that needs a charger waits on battery, says so, and runs once plugged in", browser, async () => {
  // The demo's own switch flips its condition source; the plugin sees "on battery".
  await click(browser, "battery-toggle");
  await click(browser, "reembed");
  await until(browser, "the page to say why it waits", async () =>
    (await text(browser, "reembed-state")) === "queued · waiting for a charger",
  );
  await until(browser, "the inspector to say it too", async () => {
    const rows = await browser.execute(() =>
      Array.from(document.querySelector("jobs-inspector").shadowRoot.querySelectorAll("#jobs tr[data-id] td.status")).map((td) => td.textContent),
    );
    return rows.some((status) => status.includes("waiting for a charger"));
  });
  // Its detail says why it waits, in words.
  const waiting = await browser.execute(() =>
    Number(
      Array.from(document.querySelector("jobs-inspector").shadowRoot.querySelectorAll("#jobs tr[data-id]")).find((tr) =>
        tr.querySelector("td.status")?.textContent.includes("waiting for a charger"),
      )?.dataset.id,
    ),
  );
  await pressInInspector(browser, `#jobs tr[data-id="${waiting}"] button[data-action="open"]`);
  await until(browser, "the detail to say why it waits", async () =>
    ((await inInspector(browser, "#detail-why"))?.text ?? "").includes("waiting for a charger"),
  );
  await pressInInspector(browser, '#detail button[data-action="close"]');
  // Still waiting a second later: nothing claims it on battery.
  await browser.pause(1000);
  if ((await text(browser, "reembed-state")) !== "queued · waiting for a charger") throw new Error("it ran on battery");
  // Plugged in: the change wakes the runner, and the job runs.
  await click(browser, "battery-toggle");
  await until(browser, "the job to run", async () => (await text(browser, "reembed-state")) === "succeeded", 15_000);
});

await test("a mailbox import runs as a workflow with one bar, the index rebuilt once after the last message", browser, async () => {
  await click(browser, "import-start");
  await until(browser, "the workflow to end", async () => (await text(browser, "import-state")) !== "running", 30_000);
  const state = await text(browser, "import-state");
  const result = await text(browser, "import-result");
  if (state !== "succeeded") throw new Error(`the import ended ${state}: ${result}`);
  if (result !== "imported inbox, index rebuilt") throw new Error(`returned ${result}`);
  // The one bar counted every piece (12 messages and the rebuild) to the end.
  const bar = await browser.execute(() => document.getElementById("import-progress").value);
  if (bar !== 100) throw new Error(`the bar stopped at ${bar}`);
  if ((await text(browser, "import-done")) !== "13" || (await text(browser, "import-total")) !== "13") {
    throw new Error(`pieces ${await text(browser, "import-done")} of ${await text(browser, "import-total")}`);
  }
  // The rebuild ran once, after every embed had ended (read from raw.db's own record).
  const order = await browser.executeAsync((done) => {
    const list = (kind) =>
      window.__TAURI__.core.invoke("plugin:jobs|list_jobs", {
        filter: { status: null, kind, parent: null, actor: null, before: null, limit: 100 },
      });
    Promise.all([list("embed-message"), list("rebuild-index")]).then(
      ([embeds, rebuilds]) =>
        done({
          lastEmbed: Math.max(...embeds.map((j) => j.finishedAt)),
          rebuilds: rebuilds.map((j) => ({ startedAt: j.startedAt, status: j.status })),
        }),
      (e) => done({ error: String(e) }),
    );
  });
  if (order.error) throw new Error(order.error);
  if (order.rebuilds.length !== 1 || order.rebuilds[0].status !== "succeeded") {
    throw new Error(`rebuilds: ${JSON.stringify(order.rebuilds)}`);
  }
  if (order.rebuilds[0].startedAt < order.lastEmbed) throw new Error("the index was rebuilt before the last message");
});

await test("the inspector draws the import as a graph: the parent, its 12 messages, the rebuild after them", browser, async () => {
  await filterInspector(browser, "filter-kind", "import-mailbox");
  await until(browser, "the import's parent", async () => {
    const rows = await inspectorRows(browser);
    return rows.length > 0 && rows.every((row) => row.kind === "import-mailbox");
  });
  const [parent] = await inspectorRows(browser);
  await pressInInspector(browser, `#jobs tr[data-id="${parent.id}"] button[data-action="open"]`);
  const nodes = () =>
    browser.execute(() =>
      Array.from(document.querySelector("jobs-inspector").shadowRoot.querySelectorAll("#detail-graph g.node")).map((g) => ({
        id: Number(g.dataset.id),
        status: g.dataset.status,
        text: g.querySelector("text").textContent,
      })),
    );
  await until(browser, "the graph", async () => (await nodes()).length > 0);
  const drawn = await nodes();
  const kinds = {};
  for (const node of drawn) {
    if (node.status !== "succeeded" || !node.text.endsWith(" · succeeded")) throw new Error(`node ${node.text} is ${node.status}`);
    const kind = node.text.replace(/^#\d+ /, "").replace(/ · succeeded$/, "");
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  if (JSON.stringify(kinds) !== JSON.stringify({ "import-mailbox": 1, "embed-message": 12, "rebuild-index": 1 })) {
    throw new Error(`nodes by kind: ${JSON.stringify(kinds)}`);
  }
  const label = await browser.execute(() =>
    document.querySelector("jobs-inspector").shadowRoot.querySelector("#detail-graph svg.graph").getAttribute("aria-label"),
  );
  if (label !== `Workflow #${parent.id}: 12 pieces, 1 after them`) throw new Error(`graph labelled ${label}`);
  // A node opens that job's detail.
  const piece = drawn.find((node) => node.text.includes("embed-message"));
  await browser.execute(
    (id) =>
      document
        .querySelector("jobs-inspector")
        .shadowRoot.querySelector(`#detail-graph g.node[data-id="${id}"]`)
        .dispatchEvent(new MouseEvent("click", { bubbles: true })),
    piece.id,
  );
  await until(browser, "the piece's detail", async () =>
    ((await inInspector(browser, "#detail h3"))?.text ?? "") === `Job #${piece.id}`,
  );
  if (workflowShot) {
    await pressInInspector(browser, `#jobs tr[data-id="${parent.id}"] button[data-action="open"]`);
    await until(browser, "the graph again", async () => (await nodes()).length === 14);
    await browser.execute(() => document.querySelector("jobs-inspector").shadowRoot.querySelector("#detail-graph").scrollIntoView({ block: "center" }));
    await browser.pause(300);
    await browser.saveScreenshot(workflowShot);
  }
  await pressInInspector(browser, '#detail button[data-action="close"]');
  await filterInspector(browser, "filter-kind", "");
});

await test("a rate-limited Refresh says until when, and asks the server nothing more", browser, async () => {
  await click(browser, "throttle-toggle");
  await click(browser, "refresh");
  await until(browser, "the throttle to show", async () => (await text(browser, "sync-state")).startsWith("throttled until"));
  const runs = await text(browser, "sync-runs");
  // Past the Refresh floor (2 s), inside the server's Retry-After (3 s).
  await browser.pause(2100);
  await click(browser, "refresh");
  await until(browser, "the page to say so", async () =>
    (await text(browser, "sync-state")).startsWith("the server asked us to wait until"),
  );
  if ((await text(browser, "sync-runs")) !== runs) throw new Error("a throttled Refresh asked the server");
  await click(browser, "throttle-toggle");
  // Past the Retry-After and the floor: the next tests need the server again.
  await browser.pause(2200);
});

await test("a failing server shows backoff and health changes", browser, async () => {
  await click(browser, "fail-toggle");
  await click(browser, "refresh");
  await until(browser, "backoff to show", async () => (await text(browser, "sync-state")).includes("backing off"));
  await until(browser, "health to warn", async () => (await text(browser, "sync-health")).startsWith("warning"));
  await click(browser, "fail-toggle");
});

// The History tab's figures, each with its caption's words and the bars it drew.
const historyFigures = (browser) =>
  browser.execute(() =>
    Array.from(document.querySelector("jobs-inspector").shadowRoot.querySelectorAll("#panel-history figure")).map((figure) => ({
      kind: figure.dataset.kind ?? null,
      target: figure.dataset.target ?? null,
      caption: figure.querySelector("figcaption").textContent,
      bars: figure.querySelectorAll("svg.chart rect").length,
    })),
  );
const counted = (caption, words) => Number(caption.match(new RegExp(`(\\d+) ${words}`))?.[1] ?? NaN);

await test("the History tab charts what ended per kind and what each sync run did", browser, async () => {
  await pressInInspector(browser, "#tab-history");
  await until(browser, "the charts", async () => (await historyFigures(browser)).some((f) => f.kind === "embed-message"));
  const figures = await historyFigures(browser);
  const of = (key, value) => figures.find((f) => f[key] === value);
  const embeds = of("kind", "embed-message");
  if (counted(embeds.caption, "ended") !== 12 || counted(embeds.caption, "failed") !== 0) throw new Error(`embed-message: ${embeds.caption}`);
  const ingest = of("kind", "ingest");
  if (!ingest || !(counted(ingest.caption, "failed") >= 1) || !(counted(ingest.caption, "retried") >= 1)) {
    throw new Error(`ingest: ${ingest?.caption}`);
  }
  // The failing server's run shows in the feed's chart.
  const feed = of("target", "demo/local/feed");
  if (!feed || !(counted(feed.caption, "failed or offline") >= 1) || !(counted(feed.caption, "runs") >= 2)) {
    throw new Error(`demo/local/feed: ${feed?.caption}`);
  }
  if (figures.some((f) => f.bars === 0)) throw new Error(`a chart with no bars: ${JSON.stringify(figures)}`);
  if (historyShot) {
    await browser.execute(() => document.querySelector("jobs-inspector").shadowRoot.querySelector("#tab-history").scrollIntoView({ block: "start" }));
    await browser.pause(300);
    await browser.saveScreenshot(historyShot);
  }
  await pressInInspector(browser, "#tab-jobs");
});

await test("the schedule line and the inspector's Schedules tab follow a tick on their own", browser, async () => {
  await pressInInspector(browser, "#tab-schedules");
  const row = '#panel-schedules tr[data-name="ingest-every-minute"]';
  await until(browser, "the schedule in the inspector", async () => (await inInspector(browser, row)) !== null);
  const [line, shown] = [await text(browser, "schedule-next"), (await inInspector(browser, row)).text];
  // The schedule runs at every minute's start: nothing but its tick moves these.
  await until(
    browser,
    "both to show the tick",
    async () => (await text(browser, "schedule-next")) !== line && (await inInspector(browser, row))?.text !== shown,
    75_000,
  );
  await pressInInspector(browser, "#tab-jobs");
});

await test("moving the focus away and back syncs a due target once, and a burst of focus changes once", browser, async () => {
  const invoke = (cmd, args = {}) =>
    browser.executeAsync(
      (cmd, args, done) => window.__TAURI__.core.invoke(cmd, args).then(() => done(null), (e) => done(String(e))),
      cmd,
      args,
    );
  const state = () =>
    browser.executeAsync((done) =>
      window.__TAURI__.jobs.syncStatus().then((all) => done(all.find((s) => s.target === "demo/local/feed").state)),
    );
  const failed = await invoke("open_focus_window");
  if (failed) throw new Error(failed);
  // Past the target's min_interval (5 s) since its last run, and far from its next
  // scheduled one (every 30 s), so only the focus can start a run in the window below.
  await until(
    browser,
    "a quiet moment for the target",
    async () => {
      const now = Date.now();
      const s = await state();
      return now - s.lastAttempt > 5500 && s.nextDue - now > 8000;
    },
    40_000,
  );
  const before = (await state()).lastAttempt;
  await invoke("focus_window", { label: "second" });
  await invoke("focus_window", { label: "main" });
  await until(browser, "a sync on focus", async () => (await state()).lastAttempt !== before, 3000);
  const ran = (await state()).lastAttempt;
  for (let flip = 0; flip < 20; flip++) {
    await invoke("focus_window", { label: flip % 2 === 0 ? "second" : "main" });
  }
  await invoke("focus_window", { label: "main" });
  await browser.pause(1000);
  if ((await state()).lastAttempt !== ran) throw new Error("twenty focus changes inside min_interval ran another sync");
});

const runsSeen = Number(await text(browser, "sync-runs"));
await browser.deleteSession();

browser = await session();
await test("after a restart durable jobs and sync state are still there", browser, async () => {
  await until(browser, "jobs from before", async () => (await browser.$$("#jobs tr")).length >= 3);
  if (Number(await text(browser, "sync-runs")) < runsSeen) throw new Error("sync runs were forgotten");
  // The demo retires the legacy kind at start: its waiting job is cancelled.
  const legacy = await browser.executeAsync(
    (id, done) => window.__TAURI__.jobs.getJob(id).then((job) => done(job?.status ?? null), (e) => done(String(e))),
    legacyJob,
  );
  if (legacy !== "cancelled") throw new Error(`the retired kind's job is ${legacy}`);
});
await browser.deleteSession();

// The app's life: start order after a restart, a quit with jobs running, an update;
// uploads finished before the app quits, and after a reboot.
await lifecycleTests({ session, test, until });
await closingTests({ session, test, until });

// A config.toml with a user's typo (`rate_limit` for `rate_limits`): the app starts all
// the same, on the last file it took (none before here: the built-in settings), and the
// page says why, naming the key it meant.
const config = process.env.JOBS_DEMO_CONFIG;
if (config) {
  writeFileSync(config, '[jobs]\nworkers = 2\n\n[jobs.rate_limit]\ningest = "1/1m"\n');
  try {
    browser = await session();
    await test("a config.toml with a typo leaves the app running on the last settings it took, saying why", browser, async () => {
      const banner = await text(browser, "plugin-health");
      if (!banner.includes("config") || !banner.includes("jobs.rate_limit") || !banner.includes("did you mean `rate_limits`?")) {
        throw new Error(`the page says ${JSON.stringify(banner)}`);
      }
      // It works: a job runs.
      const id = await enqueueWith(browser, "enqueue");
      await until(browser, "the job to succeed", async () => (await statusOf(browser, id)) === "succeeded");
    });
    await browser.deleteSession();
  } finally {
    rmSync(config, { force: true });
  }
}

// The inspector on a raw.db of a million jobs: the app is closed, the file gets
// 1,000,000 finished jobs of history (a tenth of them of the window's own kind, the
// rest of kinds its scope hides) written with the sqlite3 shell, and the app starts
// on it again.
const db = process.env.JOBS_DEMO_DB;
const historyRows = 1_000_000;
const historyKinds = ["ingest", ...Array.from({ length: 7 }, (_, i) => `history.${i}`)].map((k) => `('${k}')`).join(", ");
let filled = false;
try {
  const now = Date.now();
  const started = Date.now();
  execFileSync(
    "sqlite3",
    [
      "-cmd",
      ".timeout 20000",
      db,
      `BEGIN;
       WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${historyRows})
       INSERT INTO jobs (kind, payload, status, priority, run_at, attempts, max_attempts, actor,
                         created_at, updated_at, started_at, finished_at, result, last_error)
       SELECT CASE WHEN i % 10 = 0 THEN 'ingest' ELSE 'history.' || (i % 7) END,
              '{"batch":' || i || '}', CASE WHEN i % 100 = 10 THEN 'failed' ELSE 'succeeded' END,
              50, ${now} - ${historyRows} + i, 1, 1, 'system',
              ${now} - ${historyRows} + i, ${now} - ${historyRows} + i, ${now} - ${historyRows} + i,
              ${now} - ${historyRows} + i, 'null', CASE WHEN i % 100 = 10 THEN 'HTTP 502 from the history' END
       FROM seq;
       -- 30 days of history for the same kinds, as the plugin keeps it: a row per hour
       -- past 48 hours, a row per minute since.
       WITH RECURSIVE hour(h) AS (SELECT 49 UNION ALL SELECT h + 1 FROM hour WHERE h < 720),
            kind(k) AS (VALUES ${historyKinds})
       INSERT INTO job_history (kind, span, at, succeeded, failed)
       SELECT k, 3600000, ${now - (now % 3_600_000)} - h * 3600000, 60, 1 FROM hour, kind;
       WITH RECURSIVE minute(m) AS (SELECT 1 UNION ALL SELECT m + 1 FROM minute WHERE m < 2880),
            kind(k) AS (VALUES ${historyKinds})
       INSERT INTO job_history (kind, span, at, succeeded, failed)
       SELECT k, 60000, ${now - (now % 60_000)} - m * 60000, 1, m % 10 = 0 FROM minute, kind
       WHERE true ON CONFLICT (kind, span, at) DO UPDATE SET succeeded = succeeded + 1, failed = failed + excluded.failed;
       DELETE FROM job_counts WHERE kind <> '';
       INSERT INTO job_counts (kind, status, n)
         SELECT kind, status, count(*) FROM jobs WHERE status <> 'queued' AND status <> 'running'
         GROUP BY kind, status;
       COMMIT;`,
    ],
    { timeout: 120_000 },
  );
  filled = true;
  console.log(`     filled raw.db with ${historyRows} jobs and 30 days of history in ${Date.now() - started} ms`);
} catch (error) {
  console.log(`skipped: the inspector at a million jobs (could not fill raw.db: ${error.message})`);
}
if (filled) {
  browser = await session();
  await test("the inspector opens on a raw.db of a million jobs, and its first render is printed", browser, async () => {
    await click(browser, "open-inspector");
    const firstRender = () => browser.execute(() => document.querySelector("jobs-inspector")?.dataset.firstRenderMs ?? null);
    await until(browser, "the inspector's first render", async () => (await firstRender()) !== null, 30_000);
    const rows = await inspectorRows(browser);
    console.log(`     inspector first render with ${historyRows} more jobs in raw.db (jobs view, ${rows.length} rows): ${await firstRender()} ms`);
    if (rows.length !== 50) throw new Error(`${rows.length} rows`);
    // Only the window's own kind, however many others there are.
    if (rows.some((row) => row.kind !== "ingest")) throw new Error("a kind outside the window's scope was shown");
    await filterInspector(browser, "filter-status", "failed");
    await until(browser, "a page of failed jobs", async () => {
      const page = await inspectorRows(browser);
      return page.length === 50 && page.every((row) => row.status === "failed");
    });
  });
  await test("the History tab on the million-job file charts the last day of the window's own kind, and its draw is printed", browser, async () => {
    await filterInspector(browser, "filter-status", "");
    const started = Date.now();
    await pressInInspector(browser, "#tab-history");
    await until(browser, "the last hour's charts", async () => (await historyFigures(browser)).some((f) => f.kind === "ingest"));
    const hour = Date.now() - started;
    await browser.execute(() => {
      const span = document.querySelector("jobs-inspector").shadowRoot.querySelector("#panel-history select");
      span.value = "lastDay";
      span.dispatchEvent(new Event("change"));
    });
    const asked = Date.now();
    // A day by hour: the minutes of the fill (one job a minute) and the run's own.
    await until(browser, "the last day's charts", async () => {
      const ingest = (await historyFigures(browser)).find((f) => f.kind === "ingest");
      return ingest?.caption.includes("a bar per hour") && counted(ingest.caption, "ended") >= 1400;
    });
    console.log(`     History tab with 30 days of history: last hour drawn in ${hour} ms, last day in ${Date.now() - asked} ms (through WebDriver)`);
    const figures = await historyFigures(browser);
    if (figures.some((f) => f.kind?.startsWith("history."))) throw new Error("a kind outside the window's scope was charted");
    const ingest = figures.find((f) => f.kind === "ingest");
    if (!(counted(ingest.caption, "failed") >= 140)) throw new Error(`ingest over the last day: ${ingest.caption}`);
  });
  await browser.deleteSession();
}

report();
