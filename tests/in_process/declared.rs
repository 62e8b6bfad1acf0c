//! Schedules declared at start: the app's code gives them, `config.toml` changes them
//! or adds its own, and one the file no longer declares is removed at the next start.

use crate::common;

use std::time::Duration;

use common::Harness;
use serde_json::json;
use tauri_plugin_jobs::config::Config;
use tauri_plugin_jobs::scheduler::{ScheduleSpec, Scheduler};
use tauri_plugin_jobs::Error;

fn config(text: &str) -> Config {
    Config::parse(text, "/etc/app/config.toml").unwrap()
}

fn code() -> Vec<ScheduleSpec> {
    vec![
        ScheduleSpec::every("digest", "digest", Duration::from_secs(3600))
            .payload(json!({"to": "team"})),
    ]
}

#[test]
fn config_changes_the_codes_schedules_adds_its_own_and_takes_them_away() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler
        .declare(
            code(),
            &config(
                r#"
                [schedules.digest]
                cron = "0 8 * * 1-5"
                zone = "Europe/Berlin"

                [schedules.tidy]
                kind = "tidy"
                every = "30m"
                payload = { deep = true }
                priority = 10
                "#,
            ),
        )
        .unwrap();
    let digest = scheduler.get("digest").unwrap().unwrap();
    assert_eq!(digest.cron.as_deref(), Some("0 8 * * 1-5"));
    assert_eq!(digest.zone.as_deref(), Some("Europe/Berlin"));
    assert_eq!(
        digest.payload,
        json!({"to": "team"}),
        "what the file leaves alone stays"
    );
    let tidy = scheduler.get("tidy").unwrap().unwrap();
    assert_eq!(tidy.interval_ms, Some(1_800_000));
    assert_eq!(tidy.payload, json!({"deep": true}));

    // The next start, with the sections gone: the file's own schedule goes, the
    // code's comes back as the code declares it.
    scheduler.declare(code(), &config("")).unwrap();
    assert!(scheduler.get("tidy").unwrap().is_none());
    let digest = scheduler.get("digest").unwrap().unwrap();
    assert_eq!(digest.interval_ms, Some(3_600_000));
    assert_eq!((digest.cron, digest.zone), (None, None));
}

#[test]
fn a_schedule_added_by_an_upsert_is_not_the_files_to_remove() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    scheduler
        .upsert(ScheduleSpec::every("mine", "k", Duration::from_secs(60)))
        .unwrap();
    scheduler.declare(Vec::new(), &config("")).unwrap();
    assert!(scheduler.get("mine").unwrap().is_some());
}

#[test]
fn a_section_that_cannot_be_a_schedule_names_its_key() {
    let h = Harness::new();
    let scheduler = Scheduler::new(h.queue.clone());
    for (text, fragment) in [
        ("[schedules.orphan]\nevery = \"1h\"", "kind"),
        ("[schedules.orphan]\nkind = \"k\"", "`every` or `cron`"),
    ] {
        match scheduler.declare(Vec::new(), &config(text)) {
            Err(Error::Config { key, reason, .. }) => {
                assert_eq!(key, "schedules.orphan");
                assert!(reason.contains(fragment), "{reason}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }
}
