// A smoke test of ci/quickstart (built by scripts/quickstart.sh from the packaged
// crate and npm tarball) in the real webview, through tauri-driver: the README's
// snippet runs to its end, every awaited call settling, and the template's own parts
// still work beside the plugin. Prints what it checked; exits non-zero on a failure.
import { remote } from "webdriverio";

const browser = await remote({
  hostname: "127.0.0.1",
  port: Number(process.env.TAURI_DRIVER_PORT ?? 4444),
  logLevel: "warn",
  connectionRetryCount: 3,
  capabilities: {
    browserName: "wry",
    "wdio:enforceWebDriverClassic": true,
    "tauri:options": { application: process.env.QUICKSTART_BIN },
  },
});

const failures = [];
const check = (what, ok, seen) => {
  console.log(`${ok ? "ok" : "FAILED"}: ${what}${ok ? "" : ` (saw ${JSON.stringify(seen)})`}`);
  if (!ok) failures.push(what);
};
const log = () => browser.execute(() => document.querySelector("#jobs-log")?.textContent ?? "");

try {
  // The snippet logs "done" after its last await, or "failed: ..." if one threw.
  await browser
    .waitUntil(async () => /^(done|failed: .*)$/m.test(await log()), { timeout: 60_000, interval: 100 })
    .catch(() => {});
  const lines = (await log()).split("\n");
  console.log(lines.map((line) => `  | ${line}`).join("\n"));
  check("every awaited call of the snippet settled", lines.includes("done"), lines.at(-2));
  check("the durable job's result", lines.includes("thumbnail: a.png@256"), lines);
  check(
    "a failed job rejects with its code and error",
    lines.some((line) => line.startsWith("jobFailed: ") && line.includes("width must not be zero")),
    lines,
  );
  check("the local job's result", lines.some((line) => /^export \S+: 5000 rows$/.test(line)), lines);
  check(
    "Refresh answers",
    lines.includes("refresh: notModified") || lines.includes("refresh: updated"),
    lines,
  );
  check("state events reach the page", lines.some((line) => /^job \d+ thumbnail: succeeded$/.test(line)), lines);
  const bar = await browser.execute(() => document.querySelector("#jobs-progress")?.value);
  check("the progress bar reached the end", bar === 100, bar);

  // The inspector (its own entry point) shows the jobs; it draws into a shadow root.
  let kinds = [];
  await browser
    .waitUntil(
      async () => {
        kinds = await browser.execute(() =>
          Array.from(
            document.querySelector("jobs-inspector")?.shadowRoot?.querySelectorAll("#jobs tr[data-id]") ?? [],
          ).map((tr) => tr.children[1].textContent),
        );
        return kinds.filter((kind) => kind === "thumbnail").length === 2;
      },
      { timeout: 10_000, interval: 100 },
    )
    .catch(() => {});
  check("the inspector lists both jobs", kinds.filter((kind) => kind === "thumbnail").length === 2, kinds);

  // The template's own parts, kept: its greet command and the SQL plugin beside ours.
  const sql = await browser.execute(() => document.querySelector("#sql-answer")?.textContent);
  check("SELECT 40 + 2 through tauri-plugin-sql", sql === "42", sql);
  await (await browser.$("#greet-input")).setValue("jobs");
  await (await browser.$("#greet-form button")).click();
  let greeting = "";
  await browser
    .waitUntil(async () => (greeting = await (await browser.$("#greet-msg")).getText()) !== "", { timeout: 10_000 })
    .catch(() => {});
  check("the template's greet command", greeting.startsWith("Hello, jobs!"), greeting);
} finally {
  await browser.deleteSession().catch(() => {});
}

console.log(failures.length ? `quickstart: ${failures.length} failed` : "quickstart: every check passed");
process.exit(failures.length ? 1 : 0);
