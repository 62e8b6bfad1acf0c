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
];

/// The schema version this build writes and reads.
pub(crate) const CURRENT_VERSION: i64 = MIGRATIONS.len() as i64;
