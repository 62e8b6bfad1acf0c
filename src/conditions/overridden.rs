//! A source that says what another says, but for what the app overrides by hand: how
//! a debug build, a settings switch or a demo pretends the machine is on battery or on
//! a metered network, over the real machine. Compared with [`FakeConditions`], which
//! knows only what a test sets, everything not overridden comes from the inner source
//! (its changes wake the queue as before, and so does every override).
//!
//! [`FakeConditions`]: super::FakeConditions

use std::fmt;
use std::sync::{Arc, Mutex};

use super::{ConditionSource, Conditions, Waker};
use crate::locks::lock;
use crate::model::{Health, Timestamp};

/// `inner`'s conditions, with some set by hand. Clones share the overrides.
///
/// ```
/// use tauri_plugin_jobs::conditions::{ConditionSource, Overridden, SystemConditions};
///
/// let conditions = Overridden::new(SystemConditions::default());
/// // Give it to the plugin: Builder::new().conditions(conditions.clone())
/// conditions.set_on_ac_power(Some(false)); // "Pretend on battery": on
/// conditions.set_on_ac_power(None); // off: as the machine says
/// ```
#[derive(Clone)]
pub struct Overridden<S> {
    inner: S,
    overrides: Arc<Overrides>,
}

#[derive(Default)]
struct Overrides {
    // Mutex: set by the app now and then, read at claims.
    set: Mutex<Set>,
    // Mutex: added once per queue, called on each change.
    wakers: Mutex<Vec<Arc<Waker>>>,
}

/// What is overridden; `None`: as the inner source says.
#[derive(Debug, Clone, Copy, Default)]
struct Set {
    on_ac_power: Option<bool>,
    battery_percent: Option<u8>,
    metered_network: Option<bool>,
}

impl<S: fmt::Debug> fmt::Debug for Overridden<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Overridden")
            .field("inner", &self.inner)
            .field("overrides", &*lock(&self.overrides.set))
            .finish()
    }
}

impl<S: ConditionSource> Overridden<S> {
    /// `inner`, nothing overridden yet.
    #[must_use]
    pub fn new(inner: S) -> Self {
        Overridden {
            inner,
            overrides: Arc::default(),
        }
    }

    /// Pretends the machine is on a charger (`Some(true)`) or on battery
    /// (`Some(false)`); `None` goes back to what the machine says.
    pub fn set_on_ac_power(&self, on_ac_power: Option<bool>) {
        self.change(|set| set.on_ac_power = on_ac_power);
    }

    /// Pretends the battery is at `percent`; `None` goes back to the machine's.
    pub fn set_battery_percent(&self, percent: Option<u8>) {
        self.change(|set| set.battery_percent = percent.map(|p| p.min(100)));
    }

    /// Pretends the network is metered (`Some(true)`) or not; `None` goes back to
    /// what the machine says.
    pub fn set_metered_network(&self, metered: Option<bool>) {
        self.change(|set| set.metered_network = metered);
    }

    /// The source under the overrides.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn change(&self, change: impl FnOnce(&mut Set)) {
        change(&mut lock(&self.overrides.set));
        let wakers = lock(&self.overrides.wakers).clone();
        for waker in wakers {
            waker();
        }
    }
}

impl<S: ConditionSource> ConditionSource for Overridden<S> {
    fn conditions(&self, now: Timestamp) -> Conditions {
        let machine = self.inner.conditions(now);
        let set = *lock(&self.overrides.set);
        Conditions {
            on_ac_power: set.on_ac_power.or(machine.on_ac_power),
            battery_percent: set.battery_percent.or(machine.battery_percent),
            metered_network: set.metered_network.or(machine.metered_network),
            user_idle_secs: machine.user_idle_secs,
        }
    }

    fn on_change(&self, waker: Waker) {
        let waker: Arc<Waker> = Arc::new(waker);
        let again = waker.clone();
        self.inner.on_change(Box::new(move || again()));
        lock(&self.overrides.wakers).push(waker);
    }

    fn health(&self) -> Health {
        self.inner.health()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::conditions::FakeConditions;

    #[test]
    fn an_override_wins_and_none_gives_the_machine_back() {
        let machine = FakeConditions::new();
        machine.set_on_ac_power(Some(true));
        machine.set_battery_percent(Some(80));
        machine.set_metered_network(Some(false));
        let conditions = Overridden::new(machine.clone());
        let woken = Arc::new(AtomicU32::new(0));
        let counter = woken.clone();
        conditions.on_change(Box::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        }));
        let now = Timestamp::from_millis(0);
        assert_eq!(conditions.conditions(now), machine.conditions(now));

        conditions.set_on_ac_power(Some(false));
        conditions.set_metered_network(Some(true));
        let pretended = conditions.conditions(now);
        assert_eq!(pretended.on_ac_power, Some(false));
        assert_eq!(pretended.metered_network, Some(true));
        assert_eq!(pretended.battery_percent, Some(80), "not overridden");
        assert_eq!(woken.load(Ordering::SeqCst), 2, "each override wakes");

        // The machine's own changes still come through, and still wake.
        machine.set_battery_percent(Some(20));
        assert_eq!(conditions.conditions(now).battery_percent, Some(20));
        assert_eq!(woken.load(Ordering::SeqCst), 3);

        conditions.set_on_ac_power(None);
        conditions.set_metered_network(None);
        assert_eq!(conditions.conditions(now), machine.conditions(now));
    }
}
