// End-to-end tests of the demo app in a real WebKitGTK window, through tauri-driver
// and WebKitWebDriver. Run by scripts/e2e.sh, which starts Xvfb and tauri-driver.
// Prints "N passed, M failed"; on a failure, the page's state and a screenshot.
import { mkdirSync } from "node:fs";
import { remote } from "webdriverio";

const app = process.env.JOBS_DEMO_BIN;
const port = Number(process.env.TAURI_DRIVER_PORT ?? 4444);
const screenshot = process.env.SCREENSHOT_PATH;
const artifacts = process.env.E2E_ARTIFACTS ?? "target/e2e";
mkdirSync(artifacts, { recursive: true });

async function session() {
  const browser = await remote({
    hostname: "127.0.0.1",
    port,
    logLevel: "warn",
    connectionRetryCount: 3,
    capabilities: {
      browserName: "wry",
      "wdio:enforceWebDriverClassic": true,
      "tauri:options": { application: app },
    },
  });
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

await test("an export reaches 100% with a bounded number of progress events", browser, async () => {
  await click(browser, "export-start");
  await until(browser, "the export to succeed", async () => (await text(browser, "export-state")) === "succeeded", 60_000);
  const value = await (await browser.$("#export-progress")).getProperty("value");
  const events = Number(await text(browser, "export-events"));
  if (value !== 100) throw new Error(`progress bar at ${value}`);
  if (events < 2 || events > 101) throw new Error(`${events} progress events`);
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
  await until(browser, "a job to succeed", async () => (await text(browser, "jobs")).includes("succeeded"), 30_000);
  if (screenshot) await browser.saveScreenshot(screenshot);
});

await test("a failing server shows backoff and health changes", browser, async () => {
  await click(browser, "fail-toggle");
  await click(browser, "refresh");
  await until(browser, "backoff to show", async () => (await text(browser, "sync-state")).includes("backing off"));
  await until(browser, "health to warn", async () => (await text(browser, "sync-health")).startsWith("warning"));
  await click(browser, "fail-toggle");
});

const runsSeen = Number(await text(browser, "sync-runs"));
await browser.deleteSession();

browser = await session();
await test("after a restart durable jobs and sync state are still there", browser, async () => {
  await until(browser, "jobs from before", async () => (await browser.$$("#jobs tr")).length >= 3);
  if (Number(await text(browser, "sync-runs")) < runsSeen) throw new Error("sync runs were forgotten");
});
await browser.deleteSession();

const passed = results.filter(([, ok]) => ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(passed === results.length ? 0 : 1);
