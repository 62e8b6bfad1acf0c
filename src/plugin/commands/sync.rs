//! Sync targets: Refresh, automatic triggers from the page, status, the network hint,
//! and disconnecting an account.

use tauri::State;

use super::{blocking, invalid, CommandResult};
use crate::plugin::models::SyncStatus;
use crate::plugin::scope::Scope;
use crate::plugin::Jobs;
use crate::sync::{SyncOutcome, SyncTarget, Trigger};

/// Parses a target and refuses one outside the scope.
fn target(scope: &Scope, text: &str) -> CommandResult<SyncTarget> {
    let target = SyncTarget::parse(text).map_err(|error| invalid("target", error))?;
    scope.target(&target.to_string())?;
    Ok(target)
}

/// Syncs one target now (the user pressed Refresh). A press while the target's run is
/// in flight joins it; one within the refresh floor (2 s by default) of the previous
/// press's outcome gets that outcome.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_now(
    jobs: State<'_, Jobs>,
    scope: Scope,
    target: String,
) -> CommandResult<SyncOutcome> {
    let target = self::target(&scope, &target)?;
    Ok(jobs
        .sync
        .sync_now_coalesced(&target, jobs.refresh_floor)
        .await?)
}

/// Syncs one target if an automatic trigger may (not within `min_interval`, not while
/// backing off). `trigger` says what the page saw: `focus` by default; `networkBack`
/// (the page's `online` event) retries an offline target at once.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_if_due(
    jobs: State<'_, Jobs>,
    scope: Scope,
    target: String,
    trigger: Option<Trigger>,
) -> CommandResult<SyncOutcome> {
    let target = self::target(&scope, &target)?;
    let trigger = trigger.unwrap_or(Trigger::Focus);
    Ok(jobs.sync.sync_if_due(&target, trigger).await?)
}

/// State and health of every registered sync target in the window's scope.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn sync_status(jobs: State<'_, Jobs>, scope: Scope) -> CommandResult<Vec<SyncStatus>> {
    let sync = jobs.sync.clone();
    blocking(move || {
        sync.targets()
            .into_iter()
            .filter(|target| scope.allows_target(&target.to_string()))
            .map(|target| {
                Ok(SyncStatus {
                    state: sync.state(&target)?.unwrap_or_default(),
                    health: sync.health(&target)?,
                    target: target.to_string(),
                })
            })
            .collect()
    })
    .await
}

/// A hint from the webview's `online`/`offline` events. Coming online retries offline
/// targets (those in the window's scope) at once, in one pass that later hints join;
/// the attempt itself is the real probe.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn network_hint(jobs: State<'_, Jobs>, scope: Scope, online: bool) -> CommandResult<()> {
    if online {
        let targets = jobs
            .sync
            .targets()
            .into_iter()
            .filter(|target| scope.allows_target(&target.to_string()))
            .collect();
        jobs.network_pass.hint(&jobs.sync, targets);
    }
    Ok(())
}

/// Removes everything stored for an account and stops its syncs. Both names are
/// checked as a target's parts are; every target the account could have must be in
/// the window's scope.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn disconnect_account(
    jobs: State<'_, Jobs>,
    scope: Scope,
    connector: String,
    account: String,
) -> CommandResult<u64> {
    SyncTarget::check_account(&connector, &account).map_err(|error| invalid("account", error))?;
    scope.account(&connector, &account)?;
    let sync = jobs.sync.clone();
    blocking(move || sync.disconnect(&connector, &account)).await
}
