// What the end-to-end tests of the app's life share: a demo command called from the
// page, whether a process still runs, jobs once they have ended.

import { readFileSync } from "node:fs";

// A demo command: its value, or an Error with what it answered.
export async function call(browser, cmd, args = {}) {
  const answer = await browser.executeAsync(
    (cmd, args, done) =>
      window.__TAURI__.core.invoke(cmd, args).then(
        (value) => done({ value }),
        (error) => done({ error: String(error) }),
      ),
    cmd,
    args,
  );
  if ("error" in answer) throw new Error(`${cmd}: ${answer.error}`);
  return answer.value;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Whether process `pid` still runs: a zombie (ended, not yet reaped by its parent,
// the WebDriver) has ended.
export function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

// Jobs of `kind` once every one in `ids` has ended (polled through a demo command,
// which works whatever the page could do).
export async function ended(browser, until, kind, ids, timeout = 20_000) {
  let jobs = [];
  await until(
    browser,
    `${kind} jobs ${ids.join(", ")} to end`,
    async () => {
      try {
        jobs = (await call(browser, "jobs_of_kind", { kind })).filter((job) => ids.includes(job.id));
      } catch {
        return false; // the plugin is not added yet
      }
      return jobs.length === ids.length && jobs.every((job) => ["succeeded", "failed", "cancelled"].includes(job.status));
    },
    timeout,
  );
  return jobs;
}
