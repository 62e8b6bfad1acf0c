//! Where the machine's conditions come from, for jobs with [`Constraints`]: one
//! injected [`ConditionSource`], so that tests use [`FakeConditions`] and move it by
//! hand, and an app gets [`SystemConditions`] (what the operating system says), or
//! [`Overridden`] to pretend (on battery, on a metered network) over the real machine.
//!
//! A source is asked for a snapshot at every claim, so it must answer from memory; it
//! tells the queue when a condition changed (a charger plugged in, another network),
//! and the queue wakes its runners. The user's idle time is not an event: it grows on
//! its own, and a runner waiting for it sleeps until it would be long enough.

mod overridden;
mod system;

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::locks::lock;
pub use crate::model::{Conditions, Constraints, WaitingFor};
use crate::model::{Health, Timestamp};
pub use overridden::Overridden;
pub use system::{SystemConditions, SystemSettings};

/// Something the source calls when a condition changed.
pub type Waker = Box<dyn Fn() + Send + Sync>;

/// Where the machine's conditions come from.
pub trait ConditionSource: Send + Sync + fmt::Debug + 'static {
    /// The conditions at `now`, from memory (asked in every claim). `None` in a
    /// field means the source cannot tell; every constraint counts it as met.
    fn conditions(&self, now: Timestamp) -> Conditions;

    /// Calls `waker` whenever a condition may have changed. By default the source
    /// never tells: its conditions are read at the next claim.
    fn on_change(&self, waker: Waker) {
        drop(waker);
    }

    /// Whether the source can tell everything on this machine; a warning names what
    /// it cannot (and what that means for constrained jobs).
    fn health(&self) -> Health {
        Health::healthy()
    }
}

/// A source that knows nothing: every constraint counts as met. What a
/// [`Queue`](crate::queue::Queue) opened without a source uses.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnknownConditions;

impl ConditionSource for UnknownConditions {
    fn conditions(&self, _now: Timestamp) -> Conditions {
        Conditions::unknown()
    }
}

/// What the plugin reads conditions from when the app is built without the
/// `system-conditions` feature and names no source: nothing, and its health says so.
#[cfg(not(feature = "system-conditions"))]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NotBuiltIn;

#[cfg(not(feature = "system-conditions"))]
impl ConditionSource for NotBuiltIn {
    fn conditions(&self, _now: Timestamp) -> Conditions {
        Conditions::unknown()
    }

    fn health(&self) -> Health {
        Health::warning(
            "power, metered networks and idle time are not read: the app is built without \
             the `system-conditions` feature of tauri-plugin-jobs; constraints on them count \
             as met",
        )
    }
}

/// Conditions a test sets by hand. Clones share them; every change wakes the queues
/// it was given to. The setters are [`set_on_ac_power`](FakeConditions::set_on_ac_power),
/// [`set_battery_percent`](FakeConditions::set_battery_percent),
/// [`set_metered_network`](FakeConditions::set_metered_network) and
/// [`set_user_idle_since`](FakeConditions::set_user_idle_since); `None` is "cannot
/// tell", which every constraint counts as met. To pretend over the real machine
/// instead (a debug build's "on battery" switch), wrap it in
/// [`Overridden`].
///
/// ```
/// use tauri_plugin_jobs::conditions::{ConditionSource, FakeConditions};
/// use tauri_plugin_jobs::clock::Timestamp;
///
/// let conditions = FakeConditions::new();
/// conditions.set_on_ac_power(Some(false));
/// assert_eq!(conditions.conditions(Timestamp::from_millis(0)).on_ac_power, Some(false));
/// ```
#[derive(Clone, Default)]
pub struct FakeConditions {
    inner: Arc<FakeInner>,
}

#[derive(Default)]
struct FakeInner {
    // Mutex: set by a test now and then, read at claims.
    state: Mutex<FakeState>,
    // Mutex: added once per queue, called on each change.
    wakers: Mutex<Vec<Waker>>,
}

#[derive(Debug, Clone, Copy, Default)]
struct FakeState {
    conditions: Conditions,
    idle_since: Option<Timestamp>,
}

impl fmt::Debug for FakeConditions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FakeConditions")
            .field("state", &*lock(&self.inner.state))
            .finish_non_exhaustive()
    }
}

impl FakeConditions {
    /// Nothing known yet: every constraint counts as met.
    #[must_use]
    pub fn new() -> Self {
        FakeConditions::default()
    }

    /// On a charger (`Some(true)`), on battery (`Some(false)`), or unknown.
    pub fn set_on_ac_power(&self, on_ac_power: Option<bool>) {
        self.change(|state| state.conditions.on_ac_power = on_ac_power);
    }

    /// The battery's charge in percent, or unknown.
    pub fn set_battery_percent(&self, percent: Option<u8>) {
        self.change(|state| state.conditions.battery_percent = percent.map(|p| p.min(100)));
    }

    /// Whether the network is metered, or unknown.
    pub fn set_metered_network(&self, metered: Option<bool>) {
        self.change(|state| state.conditions.metered_network = metered);
    }

    /// The user has been idle since `since` (`None`: unknown). A user at the
    /// keyboard is idle since now.
    pub fn set_user_idle_since(&self, since: Option<Timestamp>) {
        self.change(|state| state.idle_since = since);
    }

    fn change(&self, change: impl FnOnce(&mut FakeState)) {
        change(&mut lock(&self.inner.state));
        for waker in lock(&self.inner.wakers).iter() {
            waker();
        }
    }
}

impl ConditionSource for FakeConditions {
    fn conditions(&self, now: Timestamp) -> Conditions {
        let state = *lock(&self.inner.state);
        let mut conditions = state.conditions;
        conditions.user_idle_secs = state
            .idle_since
            .map(|since| (now.as_millis().saturating_sub(since.as_millis()).max(0) / 1000) as u64);
        conditions
    }

    fn on_change(&self, waker: Waker) {
        lock(&self.inner.wakers).push(waker);
    }
}
