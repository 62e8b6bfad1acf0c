//! The taskbar (Windows) or dock (macOS; the launcher where the desktop has Unity's
//! API on Linux) entry of the app showing the progress of the work that keeps the
//! machine awake ([`Builder::taskbar_progress`](super::Builder::taskbar_progress)): one
//! bar for all of it, as browsers show their downloads, cleared when it is done.
//!
//! Event-driven: the bar is worked out again when such a job reports progress,
//! starts or ends; nothing runs while no job keeps the machine awake.

use std::collections::HashMap;

use tauri::window::{ProgressBarState, ProgressBarStatus};
use tauri::{Manager, Runtime};
use tokio_util::sync::CancellationToken;

use crate::awake::{AwakeJob, KeepAwake, AWAKE_COMPONENT};
use crate::bus::{Event, EventBus};

/// What the bar shows: nothing, moving without a figure (no job gave a total), or a
/// percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bar {
    Hidden,
    Busy,
    Percent(u64),
}

/// The last progress of each job, by (local, id).
type Parts = HashMap<(bool, String), (u64, Option<u64>)>;

/// The bar for `jobs` (those keeping the machine awake now): their steps done over
/// their steps in all, among those that gave a total.
pub(crate) fn bar(jobs: &[AwakeJob], parts: &Parts) -> Bar {
    if jobs.is_empty() {
        return Bar::Hidden;
    }
    match super::summary::percent_of(
        jobs.iter()
            .filter_map(|job| parts.get(&(job.local, job.id.clone())).copied()),
    ) {
        Some(percent) => Bar::Percent(percent),
        None => Bar::Busy,
    }
}

/// Keeps the app's main window's bar (the window labelled `main`, else the first)
/// in step with the work that keeps the machine awake, until `stop`.
pub(crate) fn watch<R: Runtime>(
    app: tauri::AppHandle<R>,
    bus: &EventBus,
    awake: KeepAwake,
    stop: CancellationToken,
) {
    let mut events = bus.subscribe(256);
    crate::tasks::spawn_in_app(async move {
        let mut parts = Parts::new();
        let mut shown = Bar::Hidden;
        loop {
            let event = tokio::select! {
                () = stop.cancelled() => break,
                event = events.next() => match event {
                    Some(event) => event,
                    None => break,
                },
            };
            match &*event {
                Event::JobProgress(e) => {
                    parts.insert((false, e.id.to_string()), (e.done, e.total));
                }
                Event::LocalJobProgress(e) => {
                    parts.insert((true, e.id.to_string()), (e.done, e.total));
                }
                Event::JobStateChanged(_) | Event::LocalJobChanged(_) => {}
                Event::PluginHealth(e) if e.component == AWAKE_COMPONENT => {}
                _ => continue,
            }
            let jobs = awake.status().jobs;
            parts.retain(|(local, id), _| {
                jobs.iter().any(|job| job.local == *local && job.id == *id)
            });
            let now = bar(&jobs, &parts);
            if now != shown {
                shown = now;
                show(&app, now);
            }
        }
        if shown != Bar::Hidden {
            show(&app, Bar::Hidden);
        }
    });
}

fn show<R: Runtime>(app: &tauri::AppHandle<R>, bar: Bar) {
    let window = app
        .get_webview_window("main")
        .or_else(|| app.webview_windows().into_values().next());
    let Some(window) = window else { return };
    let state = match bar {
        Bar::Hidden => ProgressBarState {
            status: Some(ProgressBarStatus::None),
            progress: None,
        },
        Bar::Busy => ProgressBarState {
            status: Some(ProgressBarStatus::Indeterminate),
            progress: None,
        },
        Bar::Percent(percent) => ProgressBarState {
            status: Some(ProgressBarStatus::Normal),
            progress: Some(percent),
        },
    };
    if let Err(error) = window.set_progress_bar(state) {
        tracing::debug!(%error, "the taskbar's progress bar could not be set");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::JobId;

    #[test]
    fn one_bar_for_every_job_that_keeps_the_machine_awake() {
        let import = AwakeJob::durable("import", JobId::from_raw(1));
        let export = AwakeJob::local("export", "7");
        let mut parts = Parts::new();
        assert_eq!(bar(&[], &parts), Bar::Hidden);
        assert_eq!(
            bar(std::slice::from_ref(&import), &parts),
            Bar::Busy,
            "no total yet"
        );
        parts.insert((false, "1".into()), (10, Some(40)));
        assert_eq!(bar(std::slice::from_ref(&import), &parts), Bar::Percent(25));
        parts.insert((true, "7".into()), (50, Some(60)));
        // 60 of 100 steps, the two together.
        assert_eq!(
            bar(&[import.clone(), export.clone()], &parts),
            Bar::Percent(60)
        );
        // A job without a total moves the bar by none; one past its total counts whole.
        parts.insert((true, "7".into()), (90, Some(60)));
        assert_eq!(bar(&[import, export], &parts), Bar::Percent(70));
    }
}
