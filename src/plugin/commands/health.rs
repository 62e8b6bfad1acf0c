//! The health of the plugin's own components, for a page that says what is wrong
//! (a `config.toml` the plugin refused, a damaged `raw.db`): not sync targets, whose
//! health `sync_status` gives within the window's scope. These name no target, and
//! only `awake` names jobs: those the window may read (`get_job`, `get_local_job`;
//! others it counts);
//! files are named by their names, not their paths (which would say the user's name).

use tauri::State;

use super::{blocking, CommandResult};
use crate::plugin::builder::CONFIG_COMPONENT;
use crate::plugin::models::ComponentHealth;
use crate::plugin::scope::{ReadScopes, Scope};
use crate::plugin::Jobs;

/// How the plugin's own components are doing: `config`, `raw.db`, `conditions`,
/// `awake` (healthy, saying which jobs keep the machine awake while some do; a
/// warning when the system would not keep it awake), `quit` (healthy, saying what is
/// being finished while the app's quit waits for it) and `instances` (a warning while
/// another instance of the app runs jobs on the same `raw.db`).
#[tauri::command]
#[cfg_attr(feature = "specta", specta::specta)]
pub async fn plugin_health(
    jobs: State<'_, Jobs>,
    reads: ReadScopes,
) -> CommandResult<Vec<ComponentHealth>> {
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
        ComponentHealth {
            component: crate::awake::AWAKE_COMPONENT.to_owned(),
            // The jobs named are the ones the window may read (through `get_job` and
            // `get_local_job`); others are counted.
            health: jobs.keep_awake().health_of(|job| {
                let (scope, allows): (_, fn(&Scope, &str) -> bool) = if job.local {
                    (&reads.local_jobs, Scope::allows_local_kind)
                } else {
                    (&reads.jobs, Scope::allows_kind)
                };
                scope.as_ref().is_some_and(|scope| allows(scope, &job.kind))
            }),
        },
        ComponentHealth {
            component: crate::plugin::quit::QUIT_COMPONENT.to_owned(),
            health: jobs.quit.health(),
        },
        ComponentHealth {
            component: crate::plugin::instances::INSTANCES_COMPONENT.to_owned(),
            health: if jobs.is_started() {
                // A read of a few rows, and a write only when one names a process gone.
                let (instances, queue) = (jobs.instances.clone(), queue.clone());
                blocking(move || Ok(instances.check(&queue))).await?
            } else {
                jobs.instances.health()
            },
        },
    ])
}
