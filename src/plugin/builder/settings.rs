//! Which `config.toml` the plugin starts on: the file, when it is taken; when it is
//! refused, the last file that was taken (its text kept in `raw.db`, so across
//! restarts too), else the built-in settings; and the `config` health that says which.

use std::path::Path;
use std::sync::Arc;

use super::start::Opened;
use super::Builder;
use crate::bus::EventBus;
use crate::conditions::ConditionSource;
use crate::config::{Config, OnConfigError};
use crate::model::Health;
use crate::queue::Queue;
use crate::store::kv;

/// The `kv` key of the last `config.toml` taken: `{"text": ..., "at": ms}`.
pub(crate) const LAST_GOOD_KEY: &str = "plugin.config.last_good";

/// The last file taken, as `raw.db` keeps it.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    text: String,
    at: i64,
}

impl Builder {
    /// Opens everything on the settings in force (see the module's doc) and says
    /// which they are.
    pub(super) fn open_configured(
        &self,
        path: &Path,
        database: &Path,
        bus: &EventBus,
        conditions: &Arc<dyn ConditionSource>,
    ) -> crate::Result<(Opened, Health)> {
        let tried = Config::load_text(path).and_then(|(config, text)| {
            self.open(database, Some(&config), bus, conditions)
                .map(|opened| (opened, text))
        });
        let error = match tried {
            Ok((opened, text)) => {
                keep(&opened.queue, text);
                return Ok((opened, Health::healthy()));
            }
            Err(error)
                if self.on_config_error == OnConfigError::UseDefaults
                    && refuses_config(&error, path) =>
            {
                error
            }
            Err(error) => return Err(error),
        };
        // The webview reads it: the file by its name, not the user's path.
        let name = path.file_name().map_or_else(
            || "config.toml".into(),
            |name| name.to_string_lossy().into_owned(),
        );
        let said = error
            .to_string()
            .replace(&path.display().to_string(), &name);
        let kept = kv::peek(database, LAST_GOOD_KEY)
            .and_then(|value| serde_json::from_str::<Kept>(&value).ok())
            .and_then(|kept| {
                Config::parse_from(&kept.text, path)
                    .ok()
                    .map(|config| (config, kept.at))
            });
        if let Some((config, at)) = kept {
            match self.open(database, Some(&config), bus, conditions) {
                Ok(opened) => {
                    let at = crate::model::time::rfc3339_seconds(
                        crate::clock::Timestamp::from_millis(at),
                    )
                    .map_or_else(|| "earlier".to_owned(), |at| format!("at {at}"));
                    tracing::error!(%error, path = %path.display(),
                        "config.toml refused whole: starting on the last file taken ({at})");
                    let health = Health::error(format!(
                        "{said} (the file was refused whole: the settings of the last {name} \
                         taken, {at}, stay in force until it is fixed and the app restarts)"
                    ));
                    return Ok((opened, health));
                }
                Err(later) => tracing::warn!(error = %later,
                    "the last config.toml taken no longer applies to this build"),
            }
        }
        tracing::error!(%error, path = %path.display(),
            "config.toml refused whole: starting on the built-in settings");
        let opened = self.open(database, None, bus, conditions)?;
        let health = Health::error(format!(
            "{said} (the file was refused whole: the built-in settings apply until \
             it is fixed and the app restarts)"
        ));
        Ok((opened, health))
    }
}

/// Keeps `text`, the file just taken, as the last good one (unless it is already).
/// A failure costs only the fallback, so it is logged, not returned.
fn keep(queue: &Queue, text: String) {
    let db = queue.db();
    let same = db
        .read(|conn| kv::get(conn, LAST_GOOD_KEY))
        .ok()
        .flatten()
        .and_then(|value| serde_json::from_str::<Kept>(&value).ok())
        .is_some_and(|kept| kept.text == text);
    if same {
        return;
    }
    let now = queue.clock().now();
    let kept = Kept {
        text,
        at: now.as_millis(),
    };
    let written = serde_json::to_string(&kept)
        .map_err(|error| crate::Error::invalid_argument("config", error.to_string()))
        .and_then(|value| db.write(now, |tx, _| kv::put(tx, LAST_GOOD_KEY, &value, now)));
    if let Err(error) = written {
        tracing::warn!(%error, "could not keep config.toml as the last good file");
    }
}

/// Whether `error` refuses the config file at `path`: anything in it is off, or it
/// cannot be read.
pub(super) fn refuses_config(error: &crate::Error, path: &Path) -> bool {
    match error {
        crate::Error::Config { .. } => true,
        crate::Error::Io { path: failed, .. } => failed == path,
        _ => false,
    }
}
