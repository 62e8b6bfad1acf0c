//! The health of the plugin's own components, for a page that says what is wrong
//! (a `config.toml` the plugin refused, a damaged `raw.db`): not sync targets, whose
//! health `sync_status` gives within the window's scope. These name no job kind nor
//! target, so the command's scope does not filter them; files are named by their
//! names, not their paths (which would say the user's name).

use tauri::State;

use super::CommandResult;
use crate::plugin::builder::CONFIG_COMPONENT;
use crate::plugin::models::ComponentHealth;
use crate::plugin::Jobs;

/// How the plugin's own components are doing: `config`, `raw.db` and `conditions`.
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn plugin_health(jobs: State<'_, Jobs>) -> CommandResult<Vec<ComponentHealth>> {
    let queue = jobs.queue();
    Ok(vec![
        ComponentHealth {
            component: CONFIG_COMPONENT.to_owned(),
            health: jobs.config_health().clone(),
        },
        ComponentHealth {
            component: crate::db::INTEGRITY_COMPONENT.to_owned(),
            // The file by its name, not the user's path.
            health: crate::db::integrity_health(
                std::path::Path::new(queue.path().file_name().unwrap_or_default()),
                &queue.integrity(),
            ),
        },
        ComponentHealth {
            component: "conditions".to_owned(),
            health: queue.conditions_health(),
        },
    ])
}
