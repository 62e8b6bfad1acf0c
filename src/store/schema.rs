//! The schema of `raw.db`, as numbered migrations.
//!
//! `PRAGMA user_version` holds the number of migrations applied. A file whose version is
//! higher than [`CURRENT_VERSION`] was written by a newer build and is refused untouched.
//! Migrations only ever append: a released migration is never edited.

/// The migrations, in order. Migration `n` (1-based) moves the file to version `n`.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: the durable job queue.
    r#"
    CREATE TABLE jobs (
        id               INTEGER PRIMARY KEY,
        kind             TEXT    NOT NULL,
        payload          TEXT    NOT NULL,
        status           TEXT    NOT NULL
                         CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
        priority         INTEGER NOT NULL,
        -- When the job became (or becomes) runnable, ms since the epoch, UTC.
        run_at           INTEGER NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        max_attempts     INTEGER NOT NULL,
        lease_owner      TEXT,
        lease_expires_at INTEGER,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        dedupe_key       TEXT,
        last_error       TEXT,
        result           TEXT,
        parent_id        INTEGER,
        actor            TEXT    NOT NULL CHECK (actor IN ('user', 'agent', 'system')),
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL,
        finished_at      INTEGER
    );
    -- The claim seeks the best runnable job of each kind here. Partial, so finished
    -- rows cost nothing however many there are.
    CREATE INDEX jobs_ready ON jobs (kind, priority DESC, run_at, id) WHERE status = 'queued';
    -- Counting a kind's running jobs (caps) seeks here; finding expired leases scans
    -- it whole, which is cheap: it holds only the few running rows. One index for both
    -- keeps each claim and each finish to one page write fewer.
    CREATE INDEX jobs_running ON jobs (kind, lease_expires_at) WHERE status = 'running';
    -- A dedupe key is taken while its job is queued or running, per kind.
    CREATE UNIQUE INDEX jobs_dedupe ON jobs (kind, dedupe_key)
        WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');
    CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
    CREATE INDEX jobs_parent ON jobs (parent_id) WHERE parent_id IS NOT NULL;
    "#,
    // 2: schedules.
    r#"
    CREATE TABLE schedules (
        name        TEXT    PRIMARY KEY,
        kind        TEXT    NOT NULL,
        payload     TEXT    NOT NULL,
        priority    INTEGER NOT NULL,
        dedupe_key  TEXT,
        actor       TEXT    NOT NULL CHECK (actor IN ('user', 'agent', 'system')),
        -- Exactly one of the two: a fixed interval in ms, or a cron expression (UTC).
        interval_ms INTEGER CHECK (interval_ms IS NULL OR interval_ms > 0),
        cron        TEXT,
        next_run    INTEGER NOT NULL,
        paused      INTEGER NOT NULL DEFAULT 0,
        last_run    INTEGER,
        last_job_id INTEGER,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        CHECK ((interval_ms IS NULL) <> (cron IS NULL))
    ) WITHOUT ROWID;
    CREATE INDEX schedules_due ON schedules (next_run) WHERE paused = 0;
    "#,
    // 3: a small key-value table. Keys are dotted paths; everything an account owns
    // lives under `acct.<connector>.<account>.`, so disconnecting is one range delete.
    r#"
    CREATE TABLE kv (
        key        TEXT    PRIMARY KEY,
        value      TEXT    NOT NULL,
        updated_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    "#,
    // 4: the jobs table again, for fewer page writes per job. Measured with perf and
    // the benchmark suite (`benches/suite`), one commit per step:
    // - The CHECKs on `status` and `actor` are comparisons now. SQLite evaluates
    //   `x IN (a, b, c)` with more than two constants by building a temporary b-tree
    //   of the list on every execution of the statement: a quarter of every insert's
    //   and status change's time (sqlite3BtreeOpen under each UPDATE).
    // - One index, `jobs_active`, holds queued and running jobs instead of two (ready,
    //   running): a claim moves the job's entry within one small index, often within
    //   one page (status DESC puts running entries just before the best queued ones),
    //   and each commit writes one page fewer.
    // - No index on `finished_at`: it cost a page write on every finish so that an
    //   hourly retention sweep could seek. The sweep reads in id order instead and
    //   stops at the first job created after its cutoff (see `store::jobs::prune`).
    // Same columns and meaning; the rows are copied over with their ids.
    r#"
    CREATE TABLE jobs_v4 (
        id               INTEGER PRIMARY KEY,
        kind             TEXT    NOT NULL,
        payload          TEXT    NOT NULL,
        status           TEXT    NOT NULL
                         CHECK (status = 'queued' OR status = 'running' OR status = 'succeeded'
                                OR status = 'failed' OR status = 'cancelled'),
        priority         INTEGER NOT NULL,
        run_at           INTEGER NOT NULL,
        attempts         INTEGER NOT NULL DEFAULT 0,
        max_attempts     INTEGER NOT NULL,
        lease_owner      TEXT,
        lease_expires_at INTEGER,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        dedupe_key       TEXT,
        last_error       TEXT,
        result           TEXT,
        parent_id        INTEGER,
        actor            TEXT    NOT NULL
                         CHECK (actor = 'user' OR actor = 'agent' OR actor = 'system'),
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL,
        finished_at      INTEGER
    );
    INSERT INTO jobs_v4 (id, kind, payload, status, priority, run_at, attempts, max_attempts,
                         lease_owner, lease_expires_at, cancel_requested, dedupe_key,
                         last_error, result, parent_id, actor, created_at, updated_at,
                         finished_at)
        SELECT id, kind, payload, status, priority, run_at, attempts, max_attempts,
               lease_owner, lease_expires_at, cancel_requested, dedupe_key,
               last_error, result, parent_id, actor, created_at, updated_at, finished_at
        FROM jobs ORDER BY id;
    DROP TABLE jobs;
    ALTER TABLE jobs_v4 RENAME TO jobs;
    -- Claims seek a kind's best queued job here (status, kind, then claim order); caps
    -- count a kind's running jobs and the lease sweep reads every running one. Partial,
    -- so finished rows cost nothing however many there are.
    CREATE INDEX jobs_active ON jobs (status DESC, kind, priority DESC, run_at, id, lease_expires_at)
        WHERE status = 'queued' OR status = 'running';
    -- A dedupe key is taken while its job is queued or running, per kind. A list of two
    -- is compared term by term (no temporary b-tree), so it keeps its IN.
    CREATE UNIQUE INDEX jobs_dedupe ON jobs (kind, dedupe_key)
        WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running');
    CREATE INDEX jobs_parent ON jobs (parent_id) WHERE parent_id IS NOT NULL;
    "#,
    // 5: settings per kind that every claimer obeys, and two job columns.
    // - `kinds`: the cap on running jobs of a kind (NULL: none) and whether the kind is
    //   paused, stored so that every claim in every process enforces them, whatever
    //   the claimer passes.
    // - `jobs.started_at`: when the current (or last) attempt started.
    // - `jobs.timeout_ms`: a time limit for each attempt of this job (NULL: the kind's).
    r#"
    CREATE TABLE kinds (
        kind        TEXT    PRIMARY KEY,
        max_running INTEGER CHECK (max_running IS NULL OR max_running >= 0),
        paused      INTEGER NOT NULL DEFAULT 0 CHECK (paused = 0 OR paused = 1),
        updated_at  INTEGER NOT NULL
    ) WITHOUT ROWID;
    ALTER TABLE jobs ADD COLUMN started_at INTEGER;
    ALTER TABLE jobs ADD COLUMN timeout_ms INTEGER CHECK (timeout_ms IS NULL OR timeout_ms > 0);
    "#,
    // 6: ids are never used twice, and durable jobs keep their progress.
    // - `job_ids`: the highest id ever deleted. A rowid table hands out max(id) + 1,
    //   so deleting the newest job (or pruning every job) gave its id to the next one,
    //   and a window that followed the old job saw the new one. Inserts take the
    //   larger of the two plus one. (AUTOINCREMENT does the same, but writes its
    //   counter on every insert: a quarter of a one-job commit's time, measured.)
    // - `progress_done`, `progress_total`: the latest progress of the current
    //   attempt, written at most once a second while it runs and with its outcome, so
    //   that a window opened mid-job shows where it is.
    r#"
    CREATE TABLE job_ids (deleted INTEGER NOT NULL);
    INSERT INTO job_ids (deleted) VALUES (0);
    CREATE TRIGGER jobs_keep_ids AFTER DELETE ON jobs
        WHEN old.id > (SELECT deleted FROM job_ids)
        BEGIN UPDATE job_ids SET deleted = old.id; END;
    ALTER TABLE jobs ADD COLUMN progress_done INTEGER;
    ALTER TABLE jobs ADD COLUMN progress_total INTEGER;
    "#,
    // 7: schedules on a wall clock, and where a schedule was declared.
    // - `zone`: NULL for UTC, `local` for the machine's zone, else an IANA name; only
    //   cron schedules have one (an interval runs in absolute time).
    // - `zone_seen`: for `local`, the zone `next_run` was computed in; when the
    //   machine's zone differs at a tick, `next_run` is computed again.
    // - `origin`: `app` (code) or `config` (`config.toml`): a `config` schedule no
    //   longer in the file is removed at the next start.
    r#"
    ALTER TABLE schedules ADD COLUMN zone TEXT CHECK (zone IS NULL OR cron IS NOT NULL);
    ALTER TABLE schedules ADD COLUMN zone_seen TEXT;
    ALTER TABLE schedules ADD COLUMN origin TEXT NOT NULL DEFAULT 'app'
        CHECK (origin = 'app' OR origin = 'config');
    "#,
    // 8: reads for an inspector at a million jobs.
    // - `job_counts`: how many finished jobs (succeeded, failed, cancelled) there are
    //   of each kind, so that counting never reads the finished rows; queued and
    //   running jobs are counted from `jobs_active`, which holds only them. Kept by the
    //   statements that finish, reopen or delete a job, in their transaction
    //   (`store::jobs::tally`). Not by triggers: measured, three triggers cost a
    //   quarter of batch enqueues and a third of claim + complete (every insert and
    //   claim ran a trigger program only to find it had nothing to do).
    // - `jobs_ended_badly`: failed and cancelled jobs newest first, so a page of them
    //   is a seek however many succeeded jobs surround them. Partial: a job that
    //   succeeds writes nothing here.
    // Statuses are compared with `<>` and `=`, never `IN` (see migration 4).
    r#"
    CREATE TABLE job_counts (
        kind   TEXT    NOT NULL,
        status TEXT    NOT NULL,
        n      INTEGER NOT NULL,
        PRIMARY KEY (kind, status)
    ) WITHOUT ROWID;
    INSERT INTO job_counts (kind, status, n)
        SELECT kind, status, count(*) FROM jobs
        WHERE status <> 'queued' AND status <> 'running'
        GROUP BY kind, status;
    CREATE INDEX jobs_ended_badly ON jobs (status, id)
        WHERE status = 'failed' OR status = 'cancelled';
    "#,
    // 9: leases, and payloads across app updates.
    // - `payload_version` (jobs and schedules): the version of the payload a job was
    //   enqueued with (1 for every job before). A build whose handler takes a newer
    //   version upgrades older payloads at the claim, storing the result; a claimer
    //   that knows only older versions never claims a newer one. `jobs_active` is
    //   made again with the version at its end, so the claim's seek still reads the
    //   index alone (it holds only queued and running rows: quick to rebuild).
    // - `lease_token`: 64 random bits drawn at each claim and handed only to the
    //   claimer; every fenced write (heartbeat, progress, complete, fail, release)
    //   must present it beside the job id, worker and attempt, which anyone may read
    //   through `get_job`. Cleared when the attempt ends. Never part of a `Job`.
    // - `lease_expiries`: how many attempts in a row ended with the lease running out
    //   (the worker died, or froze). Back to 0 when an attempt ends by its worker's
    //   own hand.
    // - `lost_attempts`: how many attempts in all ended that way. They are not
    //   counted against `max_attempts` (the job runs again whatever its attempt
    //   count), and `attempts` still counts every start, so attempt numbers never
    //   repeat.
    // - `lease_ms`: the length of the running attempt's lease, so that after a wake
    //   from sleep (when every lease looks expired by the wall clock) a sweeper gives
    //   each holder one renewal period (a third of it) of awake time to renew first.
    // - `kinds.max_lease_expiries`: after this many in a row the job fails (a job
    //   that kills its worker every time must not run for ever); NULL: the default.
    r#"
    ALTER TABLE jobs ADD COLUMN lease_token INTEGER;
    ALTER TABLE jobs ADD COLUMN lease_expiries INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN lost_attempts INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN lease_ms INTEGER;
    ALTER TABLE jobs ADD COLUMN payload_version INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE schedules ADD COLUMN payload_version INTEGER NOT NULL DEFAULT 1;
    DROP INDEX jobs_active;
    CREATE INDEX jobs_active ON jobs
        (status DESC, kind, priority DESC, run_at, id, lease_expires_at, payload_version)
        WHERE status = 'queued' OR status = 'running';
    ALTER TABLE kinds ADD COLUMN max_lease_expiries INTEGER
        CHECK (max_lease_expiries IS NULL OR max_lease_expiries >= 1);
    "#,
    // 10: debounce and replace.
    // - `follow_up`: for a running job with a dedupe key, the run an enqueue that
    //   replaces or debounces asked for while it ran (JSON: payload, priority,
    //   payload version, delay). The running job is never changed; when it leaves
    //   `running`, in that transaction, the follow-up is queued under the same key
    //   (or, if the job went back to the queue, replaces its payload). NULL for
    //   nearly every row.
    r#"
    ALTER TABLE jobs ADD COLUMN follow_up TEXT;
    "#,
    // 11: rate limits per kind, across every claimer of the file.
    // - `rate_starts` per `rate_window_ms`: the limit (NULL: none). Starts are spread
    //   evenly, one every `window / starts` (rounded up to a millisecond), so no window
    //   of that length holds more than `rate_starts`.
    // - `rate_next`: the earliest time of the next start; a claim that starts a job of
    //   the kind moves it to `max(rate_next, now) + interval` in its own transaction.
    r#"
    ALTER TABLE kinds ADD COLUMN rate_starts INTEGER CHECK (rate_starts IS NULL OR rate_starts >= 1);
    ALTER TABLE kinds ADD COLUMN rate_window_ms INTEGER
        CHECK (rate_window_ms IS NULL OR rate_window_ms >= 1);
    ALTER TABLE kinds ADD COLUMN rate_next INTEGER;
    "#,
    // 12: constraints (what a job needs of the machine: a charger, a battery level, an
    //   unmetered network, an idle user), as one integer (`model::Constraints`, bits
    //   in `model/constraints.rs`): 0 for no need.
    // - `jobs.needs`: the job's own. `jobs_active` is made again with it right after
    //   the kind: each value is a lane of its own, in claim order within, so a claim
    //   reads only the lanes the machine meets (0 first) and a backlog waiting for a
    //   charger is never read through. The lanes are found by seeking from one value
    //   to the next (`store::jobs::lanes`); queued and running rows only: quick to
    //   rebuild.
    // - `kinds.needs`: every job of the kind needs these too (NULL: none).
    // - `kinds.has_needs`: a queued job of the kind may have needs of its own; set by
    //   the statement that stores them, cleared by a claim that finds none. Without
    //   it a claim reads lane 0 alone: an extra seek on every claim was 7 % more
    //   instructions for claim + complete.
    r#"
    ALTER TABLE jobs ADD COLUMN needs INTEGER NOT NULL DEFAULT 0;
    DROP INDEX jobs_active;
    CREATE INDEX jobs_active ON jobs
        (status DESC, kind, needs, priority DESC, run_at, id, lease_expires_at, payload_version)
        WHERE status = 'queued' OR status = 'running';
    ALTER TABLE kinds ADD COLUMN needs INTEGER;
    ALTER TABLE kinds ADD COLUMN has_needs INTEGER NOT NULL DEFAULT 0;
    "#,
    // 13: jobs that wait for other jobs (workflows; `store::jobs::deps`).
    // - `job_deps (dep_id, job_id)`: `job_id` waits for `dep_id` to end. Kept while
    //   `job_id` waits: all of its rows go when it is freed or cancelled, so retention
    //   never has to look at the table, and a piece's end writes no row of it.
    // - `jobs.deps_left`: how many of the jobs it waits for have not ended; while
    //   above 0 its `needs` carries bit 2, a lane no claim reads.
    // - `jobs.run_on_failed_deps`: a failed or cancelled dependency counts as ended
    //   (1) instead of cancelling the dependent (0, the default).
    // - `jobs.has_dependents`: some job waits for this one, so ending it looks for
    //   them; the attempt-ending update of a job without (nearly every one) never does.
    r#"
    CREATE TABLE job_deps (
        dep_id INTEGER NOT NULL,
        job_id INTEGER NOT NULL,
        PRIMARY KEY (dep_id, job_id)
    ) WITHOUT ROWID;
    CREATE INDEX job_deps_job ON job_deps (job_id);
    ALTER TABLE jobs ADD COLUMN deps_left INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN run_on_failed_deps INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN has_dependents INTEGER NOT NULL DEFAULT 0;
    "#,
    // 14: what a workflow's outcome is read from (`Queue::workflow`).
    // - `jobs.waited`: the job was enqueued to wait for others (1), whether or not
    //   they had ended by then. A workflow with such jobs succeeds or fails as they
    //   do; one without, as its pieces do.
    // - A dependent cancelled because a job it waited for failed keeps its
    //   `job_deps` rows (a cancel for any other reason drops them), so
    //   `retry_workflow` can make it wait again; retention drops them with the row.
    //   Jobs waiting at the upgrade are marked (their rows say so); one that already
    //   ran cannot be told from the others.
    r#"
    ALTER TABLE jobs ADD COLUMN waited INTEGER NOT NULL DEFAULT 0;
    UPDATE jobs SET waited = 1 WHERE id IN (SELECT job_id FROM job_deps);
    "#,
    // 15: the process that holds a lease (`crate::holder`).
    // - `processes (id, mark)`: each process that claimed, by its mark (on Linux
    //   `linux/<boot>/<pid ns>/<time ns>/<uid>/<pid>/<start time>`), written once
    //   by its first claim; a row goes when its process is seen gone.
    // - `jobs.lease_process`: the row of the process whose claim took the lease (NULL
    //   where the mark cannot be read, and once the lease ends), so that a claimer on
    //   the same machine can reclaim at once a job whose holder is gone rather than
    //   wait out its lease. An integer: the mark itself in every running row cost a
    //   tenth of the runner's rate (A/B of the suite's runner rows).
    r#"
    CREATE TABLE processes (
        id   INTEGER PRIMARY KEY,
        mark TEXT NOT NULL UNIQUE
    );
    ALTER TABLE jobs ADD COLUMN lease_process INTEGER;
    "#,
    // 16: what happened (`store::history`), kept for a bounded time.
    // - `job_history`: per kind and period (`span` 60000 for a minute, 3600000 for an
    //   hour; `at` its start, ms since the epoch), the jobs that ended and the attempts
    //   retried, and histograms of the time from runnable to start (`waits`) and of
    //   the run time (`runs`) of the attempts that ended in it. Written by the
    //   transactions that end the jobs; a kind's current minute is kept in
    //   `job_counts`, a row of status `minute` (`n` its start, `tally` a blob), which
    //   moves here when the minute is over (`store::history::jobs`); its ends join the
    //   kind's `succeeded` / `failed` / `cancelled` rows then, and readers of the
    //   counts add them meanwhile.
    r#"
    ALTER TABLE job_counts ADD COLUMN tally BLOB;
    CREATE TABLE job_history (
        kind      TEXT    NOT NULL,
        span      INTEGER NOT NULL CHECK (span = 60000 OR span = 3600000),
        at        INTEGER NOT NULL,
        succeeded INTEGER NOT NULL DEFAULT 0,
        failed    INTEGER NOT NULL DEFAULT 0,
        cancelled INTEGER NOT NULL DEFAULT 0,
        retries   INTEGER NOT NULL DEFAULT 0,
        waits     BLOB,
        runs      BLOB,
        PRIMARY KEY (kind, span, at)
    ) WITHOUT ROWID;
    -- - `sync_history`: per sync target (`connector/account/name`) and period, its runs
    --   by how they ended, the items they changed, and a histogram of how long they
    --   took. Written by the transaction that stores the target's state after a run.
    CREATE TABLE sync_history (
        target       TEXT    NOT NULL,
        span         INTEGER NOT NULL CHECK (span = 60000 OR span = 3600000),
        at           INTEGER NOT NULL,
        updated      INTEGER NOT NULL DEFAULT 0,
        not_modified INTEGER NOT NULL DEFAULT 0,
        failed       INTEGER NOT NULL DEFAULT 0,
        offline      INTEGER NOT NULL DEFAULT 0,
        throttled    INTEGER NOT NULL DEFAULT 0,
        changed      INTEGER NOT NULL DEFAULT 0,
        durations    BLOB,
        PRIMARY KEY (target, span, at)
    ) WITHOUT ROWID;
    "#,
    // 17: a waiting job's count (`store::jobs::deps::countdown`) moves from
    //   `jobs.deps_left` to a row of `job_counts`: kind `''` (no kind is empty), status
    //   the waiting job's id as text, `n` how many of the jobs it waits for have not
    //   ended. Every transaction that ends a job writes `job_counts` anyway (its
    //   kind's tally and minute), so a workflow's pieces count their waiting job down
    //   with no page of their own: with the count in the waiting job's row, each
    //   piece's end wrote one page more, and a waiting job cost its pieces 10 to 15 %
    //   of their rate (the suite's workflow rows, issue 44). The row lives while the
    //   job waits, and goes when it stops (freed, cancelled or deleted; `deps::
    //   forget_count`). `deps_left` stays, always 0.
    r#"
    INSERT OR REPLACE INTO job_counts (kind, status, n)
        SELECT '', CAST(id AS TEXT), deps_left FROM jobs
        WHERE status = 'queued' AND deps_left > 0 AND needs & 4 <> 0;
    UPDATE jobs SET deps_left = 0 WHERE deps_left <> 0;
    "#,
    // 18: what each failed attempt said (`jobs.errors`): a JSON array of
    //   `{"attempt": n, "at": ms, "error": text}`, oldest first, the last
    //   `MAX_ATTEMPT_ERRORS` only, appended by the statement that records the failure
    //   (`store::jobs::append_error!`). NULL for a job that never failed: a success
    //   writes nothing here (it clears `last_error`, which said the last failure).
    r#"
    ALTER TABLE jobs ADD COLUMN errors TEXT;
    "#,
    // 19: work that waits for the network or for a service (`JobError::Offline`,
    //   `::RetryAfter`, `::ThrottleKind`).
    // - `kinds.hold_until`: no job of the kind starts before it (ms), in any process;
    //   `hold_reason` says why: `service` (a handler said the service throttles the
    //   kind: nothing starts before `hold_until`, then the hold is over) or `network`
    //   (a job found the service unreachable: nothing starts before `hold_until`,
    //   then one job at a time, the probe, each booking the next `hold_until`, until
    //   an attempt gets through and the hold ends; `Queue::network_back` brings
    //   `hold_until` to now). `hold_note`: what the handler said, redacted.
    // - `jobs.offline_since`: when the job's first attempt of a run of attempts that
    //   found the network gone ended (for `max_offline`); NULL once an attempt gets
    //   through.
    // - `kinds.rate_burst`: how many starts a rate limit lets go at once (NULL: 1,
    //   evenly spread); `rate_next` is then the theoretical arrival time of the
    //   generic cell rate algorithm (`model::RateState`).
    r#"
    ALTER TABLE kinds ADD COLUMN hold_until INTEGER;
    ALTER TABLE kinds ADD COLUMN hold_reason TEXT
        CHECK (hold_reason IS NULL OR hold_reason IN ('network', 'service'));
    ALTER TABLE kinds ADD COLUMN hold_note TEXT;
    ALTER TABLE jobs ADD COLUMN offline_since INTEGER;
    ALTER TABLE kinds ADD COLUMN rate_burst INTEGER CHECK (rate_burst IS NULL OR rate_burst >= 1);
    "#,
    // 20: deferred attempts in the history, apart from retries: `job_history.offline`
    //   (attempts that found the network gone) and `.throttled` (attempts a service
    //   asked to wait: a snooze or a throttle of the kind). Written straight to the
    //   minute's row, not through `job_counts`' minute blob (`store::history::jobs`).
    // - `jobs.max_offline_ms`: how long this job may wait for the network, from its
    //   first attempt that found it gone, before it fails (NULL: its kind's limit).
    // - `jobs.snoozed_until`: the `run_at` a snooze of its handler set
    //   (`JobError::retry_after`); a reader says "snoozed" only while `run_at` still
    //   equals it, so nothing has to clear it when a retry or an edit moves `run_at`.
    r#"
    ALTER TABLE job_history ADD COLUMN offline INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE job_history ADD COLUMN throttled INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN max_offline_ms INTEGER
        CHECK (max_offline_ms IS NULL OR max_offline_ms > 0);
    ALTER TABLE jobs ADD COLUMN snoozed_until INTEGER;
    "#,
    // 21: long work in steps (`store::jobs::steps`), what a job's dependencies
    //   returned, signals a job waits for (`store::jobs::signals`) and what a job said
    //   while it ran (`store::jobs::logs`).
    // - `job_steps (job_id, name)`: a step a handler's attempt finished
    //   (`JobContext::step`), with what it returned (`output`, JSON), or a durable
    //   sleep it began (`sleep_until`, ms; no output); `seq` counts the job's steps
    //   from 1 in the order they were recorded. Written fenced by the attempt's
    //   lease, read by every later attempt, which gets the output back instead of
    //   running the step again. A payload replaced by a later enqueue drops them
    //   (`insert::replace_queued`).
    // - `job_signals (job_id, name)`: a signal sent to a job (`payload`, JSON, and
    //   `sent_at`; the first one sent stays), or a wait for one its handler began
    //   (`deadline`), or both; `timed_out` once an attempt saw the deadline pass with
    //   no signal (a later one is refused: the wait is over).
    // - `job_logs (job_id, seq)`: the lines a handler logged (`JobContext::log`),
    //   redacted, the last `jobs.log_lines` of each job kept; a row per store of a
    //   job's lines (`lines`, a JSON array of `[seq, at, attempt, level, text]`,
    //   numbered `first` to `seq`).
    // - `jobs.has_extras`: the job has rows in any of the three; the trigger below
    //   deletes them with it, on every delete (retention, an operator, a retired
    //   kind, an account disconnected), and reads only this flag for the others.
    // - `jobs.sleep_until`: the end of the durable sleep (or of the wait for a
    //   signal) a queued job waits out (ms); a reader says "sleeping" (or "waiting
    //   for") only while `run_at` still equals it, as for `snoozed_until`.
    // - `jobs.awaits_signal`: the signal the job's handler waits for, with
    //   `sleep_until` its deadline; a signal of that name brings `run_at` to now.
    // - `jobs.inputs`: the jobs a waiting job waits for, in the order its enqueue
    //   named them (a JSON array of ids; the pieces of `after_pieces_of` by id), so
    //   that it reads their results once they have ended (`job_deps` rows go as the
    //   job is freed). NULL for a job that waits for none.
    // - `job_history.slept`: attempts that began a durable sleep or a wait for a
    //   signal, apart from retries and the service's waits.
    r#"
    CREATE TABLE job_steps (
        job_id      INTEGER NOT NULL,
        name        TEXT    NOT NULL,
        seq         INTEGER NOT NULL,
        attempt     INTEGER NOT NULL,
        started_at  INTEGER NOT NULL,
        finished_at INTEGER NOT NULL,
        output      TEXT,
        sleep_until INTEGER,
        PRIMARY KEY (job_id, name)
    ) WITHOUT ROWID;
    CREATE TABLE job_signals (
        job_id    INTEGER NOT NULL,
        name      TEXT    NOT NULL,
        payload   TEXT,
        sent_at   INTEGER,
        deadline  INTEGER,
        timed_out INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (job_id, name)
    ) WITHOUT ROWID;
    CREATE TABLE job_logs (
        job_id INTEGER NOT NULL,
        seq    INTEGER NOT NULL,
        first  INTEGER NOT NULL,
        lines  TEXT    NOT NULL,
        PRIMARY KEY (job_id, seq)
    ) WITHOUT ROWID;
    ALTER TABLE jobs ADD COLUMN has_extras INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN sleep_until INTEGER;
    ALTER TABLE jobs ADD COLUMN awaits_signal TEXT;
    ALTER TABLE jobs ADD COLUMN inputs TEXT;
    ALTER TABLE job_history ADD COLUMN slept INTEGER NOT NULL DEFAULT 0;
    CREATE TRIGGER job_extras_go_with_their_job AFTER DELETE ON jobs WHEN old.has_extras
    BEGIN
        DELETE FROM job_steps WHERE job_id = old.id;
        DELETE FROM job_signals WHERE job_id = old.id;
        DELETE FROM job_logs WHERE job_id = old.id;
    END;
    "#,
];

/// The schema version this build writes and reads.
pub(crate) const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;

/// Each table of ours, with the version that created it. A file of ours at version
/// `v` holds exactly the tables created at `v` or before (checked against the
/// migrations in a test).
const TABLES: &[(i64, &str)] = &[
    (1, "jobs"),
    (2, "schedules"),
    (3, "kv"),
    (5, "kinds"),
    (6, "job_ids"),
    (8, "job_counts"),
    (13, "job_deps"),
    (15, "processes"),
    (16, "job_history"),
    (16, "sync_history"),
    (21, "job_steps"),
    (21, "job_signals"),
    (21, "job_logs"),
];

/// The tables a file of ours holds at `version`.
pub(crate) fn tables_at(version: i64) -> std::collections::BTreeSet<String> {
    TABLES
        .iter()
        .filter(|(since, _)| *since <= version)
        .map(|(_, name)| (*name).to_owned())
        .collect()
}
