//! The parser's tests: files that read, and errors that name the key.

use super::reader::parse_duration;
use super::*;

fn parse(text: &str) -> Result<Config> {
    Config::parse(text, "/etc/app/config.toml")
}

fn key_of(text: &str) -> (String, String) {
    match parse(text) {
        Err(Error::Config { path, key, reason }) => {
            assert_eq!(path, Path::new("/etc/app/config.toml"));
            (key, reason)
        }
        other => panic!("expected a config error for {text:?}, got {other:?}"),
    }
}

#[test]
fn a_full_file_parses() {
    let config = parse(
        r#"
        [jobs]
        workers = 4
        lease_seconds = 60
        poll_interval_ms = 250
        backoff_base_seconds = 2
        backoff_max_seconds = 120.5
        backoff_jitter = 0.1
        max_attempts = 7
        retention_days = 1.5
        synchronous = "FULL"
        [jobs.kind_limits]
        embed = 1
        "weird kind" = 0
        [jobs.rate_limits]
        send-mail = "60/1m"
        upload = "5/1m burst"
        fetch = "10/1h burst 3"
        [jobs.keep_awake]
        import-mail = false
        render = true
        "#,
    )
    .unwrap();
    let jobs = config.jobs;
    assert_eq!(jobs.workers, Some(4));
    assert_eq!(jobs.lease, Some(Duration::from_secs(60)));
    assert_eq!(jobs.poll_interval, Some(Duration::from_millis(250)));
    let retry = jobs.retry.unwrap();
    assert_eq!(retry.base(), Duration::from_secs(2));
    assert_eq!(retry.max(), Duration::from_millis(120_500));
    assert_eq!(jobs.max_attempts, Some(7));
    assert_eq!(jobs.retention, Some(Duration::from_secs(129_600)));
    assert_eq!(jobs.synchronous, Some(Synchronous::Full));
    assert_eq!(jobs.kind_limits.get("embed"), Some(&1));
    assert_eq!(jobs.kind_limits.get("weird kind"), Some(&0));
    assert_eq!(jobs.keep_awake.get("import-mail"), Some(&false));
    assert_eq!(jobs.keep_awake.get("render"), Some(&true));
    assert_eq!(
        jobs.rate_limits.get("send-mail"),
        Some(&crate::model::RateLimit::new(60, Duration::from_secs(60)))
    );
    assert_eq!(jobs.rate_limits["send-mail"].burst, 1, "evenly spread");
    assert_eq!(
        jobs.rate_limits["upload"].burst, 5,
        "the whole budget at once"
    );
    assert_eq!(jobs.rate_limits["fetch"].burst, 3);
}

#[test]
fn empty_and_missing_files_are_defaults() {
    assert_eq!(parse("").unwrap(), Config::default());
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Config::load(dir.path().join("none.toml")).unwrap(),
        Config::default()
    );
}

#[test]
fn errors_name_the_key() {
    let cases = [
        ("[jobs]\nworkers = 0", "jobs.workers", "from 1"),
        ("[jobs]\nworkers = -3", "jobs.workers", "found -3"),
        (
            "[jobs]\nworkers = \"four\"",
            "jobs.workers",
            "expected an integer, found string",
        ),
        (
            "[jobs]\nworker = 4",
            "jobs.worker",
            "did you mean `workers`?",
        ),
        (
            "[jobs.rate_limit]\nmail = \"5/1m\"",
            "jobs.rate_limit",
            "unknown key: did you mean `rate_limits`?",
        ),
        (
            "[jobs]\nMax-Atempts = 3",
            "jobs.Max-Atempts",
            "did you mean `max_attempts`?",
        ),
        (
            "[schedules.nightly]\nkind = \"x\"\ncorn = \"0 3 * * *\"",
            "schedules.nightly.corn",
            "did you mean `cron`?",
        ),
        (
            "[sync.\"a/b/c\"]\nmax_backof = 3",
            "sync.\"a/b/c\".max_backof",
            "did you mean `max_backoff`?",
        ),
        (
            "[jobs]\ncolour = 3",
            "jobs.colour",
            "unknown key (known: workers, lease_seconds,",
        ),
        (
            "[jobs]\nlease_seconds = 1.5",
            "jobs.lease_seconds",
            "expected an integer",
        ),
        (
            "[jobs]\nbackoff_jitter = 2",
            "jobs.backoff_jitter",
            "from 0 to 1",
        ),
        (
            "[jobs]\nbackoff_base_seconds = 10\nbackoff_max_seconds = 1",
            "jobs.backoff_*",
            "at least",
        ),
        (
            "[jobs]\nsynchronous = \"fast\"",
            "jobs.synchronous",
            "\"fast\"",
        ),
        (
            "[jobs]\nsynchronous = 1",
            "jobs.synchronous",
            "expected a string",
        ),
        (
            "[jobs.kind_limits]\nembed = -1",
            "jobs.kind_limits.embed",
            "found -1",
        ),
        (
            "[jobs]\nkind_limits = 3",
            "jobs.kind_limits",
            "expected a table",
        ),
        (
            "[jobs.keep_awake]\nimport = \"no\"",
            "jobs.keep_awake.import",
            "expected true or false",
        ),
        ("jobs = 1", "jobs", "expected a table"),
        (
            "[jobs.rate_limits]\nmail = 60",
            "jobs.rate_limits.mail",
            "starts/window",
        ),
        (
            "[jobs.rate_limits]\nmail = \"0/1m\"",
            "jobs.rate_limits.mail",
            "not from 1",
        ),
        (
            "[jobs.rate_limits]\nmail = \"5/1m burst 6\"",
            "jobs.rate_limits.mail",
            "burst \"6\" is not a number from 1 to 5",
        ),
        (
            "[jobs.rate_limits]\nmail = \"5/soon\"",
            "jobs.rate_limits.mail",
            "",
        ),
        (
            "[job]\nworkers = 1",
            "job",
            "unknown section: did you mean `jobs`?",
        ),
        ("[jobs]\nretention_days = 0", "jobs.retention_days", "from"),
    ];
    for (text, key, fragment) in cases {
        let (found, reason) = key_of(text);
        assert_eq!(found, key, "{text}");
        assert!(reason.contains(fragment), "{text}: {reason}");
    }
}

#[test]
fn schedules_and_sync_sections_parse() {
    let config = parse(
        r#"
        [schedules.morning-digest]
        kind = "digest"
        cron = "0 8 * * 1-5"
        zone = "local"
        payload = { to = "me", tags = ["a", 1, true] }
        payload_version = 3
        priority = 60

        [schedules.poll]
        every = "1h30m"

        [sync."github/me/notifications"]
        every = "10m"
        min_interval = 60
        max_backoff = "2h"
        max_throttle = "1d"
        "#,
    )
    .unwrap();
    let digest = &config.schedules["morning-digest"];
    assert_eq!(digest.kind.as_deref(), Some("digest"));
    assert_eq!(
        digest.cron.as_ref().map(ToString::to_string).as_deref(),
        Some("0 8 * * 1-5")
    );
    assert_eq!(digest.zone.as_deref(), Some("local"));
    assert_eq!(
        digest.payload,
        Some(serde_json::json!({"to": "me", "tags": ["a", 1, true]}))
    );
    assert_eq!(digest.priority, Some(Priority(60)));
    assert_eq!(digest.payload_version, Some(3));
    assert_eq!(
        config.schedules["poll"].every,
        Some(Duration::from_secs(5400))
    );
    let sync = &config.sync["github/me/notifications"];
    assert_eq!(sync.every, Some(Duration::from_secs(600)));
    assert_eq!(sync.min_interval, Some(Duration::from_secs(60)));
    assert_eq!(sync.max_backoff, Some(Duration::from_secs(7200)));
    assert_eq!(sync.max_throttle, Some(Duration::from_secs(86_400)));
}

#[test]
fn bad_schedule_and_sync_sections_name_the_key() {
    let cases = [
        (
            "[schedules.a]\nzone = \"Mars/Olympus_Mons\"\ncron = \"0 8 * * *\"",
            "schedules.a.zone",
            "Mars/Olympus_Mons",
        ),
        (
            "[schedules.a]\ncron = \"0 25 * * *\"",
            "schedules.a.cron",
            "hour",
        ),
        (
            "[schedules.a]\nevery = \"5 minutes\"",
            "schedules.a.every",
            "not a duration",
        ),
        (
            "[schedules.a]\nevery = \"0s\"",
            "schedules.a.every",
            "more than zero",
        ),
        (
            "[schedules.a]\nevery = 0.5",
            "schedules.a.every",
            "at least 1s",
        ),
        (
            "[schedules.a]\nevery = \"1m\"\ncron = \"* * * * *\"",
            "schedules.a",
            "not both",
        ),
        (
            "[schedules.a]\nevery = \"1m\"\nzone = \"local\"",
            "schedules.a.zone",
            "absolute",
        ),
        (
            "[schedules.a]\nwhen = \"now\"",
            "schedules.a.when",
            "unknown key",
        ),
        (
            "[schedules.a]\npayload_version = 0",
            "schedules.a.payload_version",
            "must be from 1 to 1000000, found 0",
        ),
        (
            "[schedules.a]\npriority = 1.5",
            "schedules.a.priority",
            "integer",
        ),
        ("schedules = 1", "schedules", "expected a table"),
        (
            "[sync.\"a/b\"]\nevery = \"1m\"",
            "sync.\"a/b\"",
            "connector/account/name",
        ),
        (
            "[sync.\"a/b/c\"]\nevery = true",
            "sync.\"a/b/c\".every",
            "duration",
        ),
        (
            "[sync.\"a/b/c\"]\nburst = \"1m\"",
            "sync.\"a/b/c\".burst",
            "unknown key",
        ),
    ];
    for (text, key, fragment) in cases {
        let (found, reason) = key_of(text);
        assert_eq!(found, key, "{text}");
        assert!(reason.contains(fragment), "{text}: {reason}");
    }
}

#[test]
fn durations_read_units_and_refuse_the_rest() {
    assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
    assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
    assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
    assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
    for bad in ["", "m", "5", "5 m", "1w", "-1s", "99999999999999999999d"] {
        assert!(parse_duration(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn syntax_errors_name_the_file_and_line() {
    let error = parse("[jobs\nworkers = 1").unwrap_err().to_string();
    assert!(error.starts_with("/etc/app/config.toml"), "{error}");
    assert!(error.contains("line 1"), "{error}");
}
