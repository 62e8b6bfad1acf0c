//! The demo's conditions: what the operating system says, with the power overridden
//! when the page's "Pretend on battery" switch (a command of the demo, not of the
//! plugin) is on, so that a job that needs a charger can be seen waiting on any
//! machine.

use tauri_plugin_jobs::conditions::{Overridden, SystemConditions};

/// [`SystemConditions`], and a switch over its power.
pub type DemoConditions = Overridden<SystemConditions>;

/// On battery (`true`), or as the machine says (`false`).
pub fn pretend_on_battery(conditions: &DemoConditions, on_battery: bool) {
    conditions.set_on_ac_power(if on_battery { Some(false) } else { None });
}
