//! The demo's conditions: what the operating system says, with the power overridden
//! when the page's "Pretend on battery" switch (a command of the demo, not of the
//! plugin) is on, so that a job that needs a charger can be seen waiting on any
//! machine.

use std::sync::Arc;

use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::conditions::{
    ConditionSource, Conditions, FakeConditions, SystemConditions, Waker,
};
use tauri_plugin_jobs::health::Health;

/// [`SystemConditions`], and a switch over its power.
#[derive(Debug, Clone, Default)]
pub struct DemoConditions {
    system: SystemConditions,
    /// Only its power is read: `Some(false)` while the switch is on.
    power: FakeConditions,
}

impl DemoConditions {
    /// On battery (`true`), or as the machine says (`false`).
    pub fn pretend_on_battery(&self, on_battery: bool) {
        self.power
            .set_on_ac_power(if on_battery { Some(false) } else { None });
    }
}

impl ConditionSource for DemoConditions {
    fn conditions(&self, now: Timestamp) -> Conditions {
        let system = self.system.conditions(now);
        match self.power.conditions(now).on_ac_power {
            Some(on_ac) => system.power(Some(on_ac), system.battery_percent),
            None => system,
        }
    }

    fn on_change(&self, waker: Waker) {
        let waker: Arc<Waker> = Arc::new(waker);
        let again = waker.clone();
        self.system.on_change(Box::new(move || again()));
        self.power.on_change(Box::new(move || waker()));
    }

    fn health(&self) -> Health {
        self.system.health()
    }
}
