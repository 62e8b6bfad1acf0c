//! Two instances of one app on one `raw.db`: started twice by mistake, each runs the
//! other's jobs against its own in-memory state. Several processes on one file are
//! otherwise a feature (agents, helpers, a second app), so only processes of the
//! same app identifier count.
//!
//! Each running plugin keeps a row in `kv` while its loops run,
//! `plugin.instance.<its process's mark>` = `{"app": "<identifier>"}` (the mark of
//! [`crate::holder`]). At its start, and each time `pluginHealth` is asked, a plugin
//! reads the rows of its app: a live process in this place (this machine, user and
//! boot) is another instance, a row of a process seen gone is deleted, and a row of
//! another place cannot be told and is left alone. What it finds is the health of
//! the `instances` component, and logged at WARN once per change. Where no mark can
//! be read (a system without one), nothing is written and nothing found.

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::bus::PluginHealth;
use crate::locks::lock;
use crate::model::Health;
use crate::queue::Queue;
use crate::store::kv;

/// The component `pluginHealth()` names for what [`Instances`] found.
pub(crate) const INSTANCES_COMPONENT: &str = "instances";

/// Where each instance's row is kept.
const PREFIX: &str = "plugin.instance.";

#[derive(Serialize, Deserialize)]
struct Row {
    app: String,
}

/// This process's row, and the other instances last seen.
pub(crate) struct Instances {
    app: String,
    key: Option<String>,
    // Mutex: written at start and by `pluginHealth` calls, read by them; short.
    seen: Mutex<Vec<u32>>,
}

impl Instances {
    /// For the app `app` (its identifier); nothing is written before
    /// [`start`](Instances::start).
    pub(crate) fn new(app: String) -> Instances {
        Instances {
            app,
            key: crate::holder::this_process().map(|mark| format!("{PREFIX}{mark}")),
            seen: Mutex::new(Vec::new()),
        }
    }

    /// Writes this process's row and looks for the others.
    pub(crate) fn start(&self, queue: &Queue) {
        let Some(key) = &self.key else { return };
        let row = serde_json::to_string(&Row {
            app: self.app.clone(),
        })
        .expect("a row serialises");
        let now = queue.clock().now();
        if let Err(error) = queue.db().write(now, |tx, _| kv::put(tx, key, &row, now)) {
            tracing::warn!(%error, "could not note this instance in raw.db");
        }
        self.check(queue);
    }

    /// Deletes this process's row (at exit).
    pub(crate) fn stop(&self, queue: &Queue) {
        let Some(key) = &self.key else { return };
        let now = queue.clock().now();
        if let Err(error) = queue.db().write(now, |tx, _| kv::delete(tx, key)) {
            tracing::warn!(%error, "could not remove this instance's note from raw.db");
        }
    }

    /// Looks again: the health of the `instances` component now. A change is logged
    /// (at WARN while another instance runs) and published as a `pluginHealth` event.
    pub(crate) fn check(&self, queue: &Queue) -> Health {
        let Some(key) = &self.key else {
            return Health::healthy();
        };
        let others = match self.others(queue, key) {
            Ok(others) => others,
            Err(error) => {
                tracing::warn!(%error, "could not look for other instances of the app");
                return self.health();
            }
        };
        let changed = {
            let mut seen = lock(&self.seen);
            let changed = *seen != others;
            *seen = others.clone();
            changed
        };
        if changed {
            if others.is_empty() {
                tracing::info!("no other instance of the app runs jobs on raw.db any more");
            } else {
                tracing::warn!(app = %self.app, pids = ?others,
                    "another instance of the app runs jobs on this raw.db: each runs the \
                     other's jobs with its own state; make the app single-instance");
            }
            queue.bus().publish(PluginHealth {
                component: INSTANCES_COMPONENT.to_owned(),
                health: self.health(),
                at: queue.clock().now(),
            });
        }
        self.health()
    }

    /// The health of what was last seen.
    pub(crate) fn health(&self) -> Health {
        instances_health(&lock(&self.seen))
    }

    /// The pids of the other live instances of this app in this place; the rows of
    /// those seen gone are deleted.
    fn others(&self, queue: &Queue, own: &str) -> crate::Result<Vec<u32>> {
        let db = queue.db();
        let rows = db.read(|conn| {
            let mut rows = Vec::new();
            for key in kv::keys(conn, PREFIX)? {
                if let Some(value) = kv::get(conn, &key)? {
                    rows.push((key, value));
                }
            }
            Ok(rows)
        })?;
        let mut others = Vec::new();
        let mut gone = Vec::new();
        for (key, value) in rows {
            if key == own {
                continue;
            }
            let mark = &key[PREFIX.len()..];
            let ours = serde_json::from_str::<Row>(&value).is_ok_and(|row| row.app == self.app);
            match crate::holder::live_other(mark) {
                Some(pid) if ours => others.push(pid),
                Some(_) => {}
                None if crate::holder::is_gone(mark) => gone.push(key),
                None => {}
            }
        }
        if !gone.is_empty() {
            let now = queue.clock().now();
            db.write(now, |tx, _| {
                for key in &gone {
                    kv::delete(tx, key)?;
                }
                Ok(())
            })?;
        }
        others.sort_unstable();
        Ok(others)
    }
}

/// Healthy, or a warning naming the other instances' pids.
fn instances_health(others: &[u32]) -> Health {
    match others {
        [] => Health::healthy(),
        pids => {
            let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
            Health::warning(format!(
                "another instance of this app (pid {}) runs jobs on the same raw.db: each \
                 runs the other's jobs with its own state; make the app single-instance \
                 (tauri-plugin-single-instance)",
                pids.join(", ")
            ))
        }
    }
}
