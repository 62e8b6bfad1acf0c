//! What a job needs of the machine before it starts ([`Constraints`]), what the
//! machine is like now ([`Conditions`]), and what a job waits for when the two do not
//! meet ([`WaitingFor`]).
//!
//! Constraints are stored as one integer (`needs`, in `jobs` and in `kinds`); in the
//! `jobs_active` index it follows the kind, so the jobs of one value of it form a lane
//! the claim reads only when the machine meets it:
//!
//! | bits | meaning |
//! | --- | --- |
//! | 0 | AC power |
//! | 1 | an unmetered network |
//! | 2 | waiting for other jobs to end (not a constraint: see `store::jobs::deps`) |
//! | 8..16 | the battery at least this percent (0: no need) |
//! | 16.. | the user idle at least this many seconds (0: no need) |

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Timestamp;

const AC_POWER: i64 = 1;
const UNMETERED: i64 = 2;
/// Not a constraint: the job waits for other jobs to end (`store::jobs::deps`). Never
/// met by any conditions, so its lane is not read until the bit is cleared.
pub(crate) const WAITING_FOR_JOBS: i64 = 4;
const BATTERY_SHIFT: u32 = 8;
const IDLE_SHIFT: u32 = 16;

/// What a job needs of the machine before it may start: a charger, a battery not
/// below a level, an unmetered network, a user away from the keyboard. A job whose
/// constraints are not met is claimed by no runner, agent or process; it starts once
/// they are (a change of the condition wakes the runner; waiting costs nothing).
///
/// Set for a kind ([`Queue::set_constraints`](crate::queue::Queue::set_constraints),
/// [`Handler::constraints`](crate::runner::Handler::constraints)) or for one job at
/// enqueue ([`EnqueueOptions::constraints`](crate::queue::EnqueueOptions::constraints));
/// a job needs both. What the machine cannot tell (no battery, no NetworkManager, no
/// idle time from the desktop) counts as met.
///
/// ```
/// use std::time::Duration;
/// use tauri_plugin_jobs::queue::Constraints;
///
/// // Re-embed the mailbox on a charger, over Wi-Fi at home, while the user is away.
/// let needs = Constraints::none()
///     .ac_power()
///     .unmetered_network()
///     .user_idle_for(Duration::from_secs(300));
/// assert!(needs.ac_power && needs.unmetered_network);
/// assert_eq!(needs.user_idle_secs, Some(300));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct Constraints {
    /// Plugged in to a charger (or no battery at all).
    #[serde(default)]
    pub ac_power: bool,
    /// On a charger, or the battery at least this many percent (1 to 100).
    #[serde(default)]
    pub battery_at_least: Option<u8>,
    /// On a network the system does not mark as metered (a phone's hotspot, a
    /// capped plan).
    #[serde(default)]
    pub unmetered_network: bool,
    /// The user has not touched the keyboard or mouse for at least this many seconds.
    #[serde(default)]
    pub user_idle_secs: Option<u32>,
}

impl Constraints {
    /// No constraint: the job starts whatever the machine is doing.
    #[must_use]
    pub fn none() -> Self {
        Constraints::default()
    }

    /// Needs AC power.
    #[must_use]
    pub fn ac_power(mut self) -> Self {
        self.ac_power = true;
        self
    }

    /// Needs AC power, or the battery at `percent` or more (clamped to 1..=100).
    #[must_use]
    pub fn battery_at_least(mut self, percent: u8) -> Self {
        self.battery_at_least = Some(percent.clamp(1, 100));
        self
    }

    /// Needs a network that is not metered.
    #[must_use]
    pub fn unmetered_network(mut self) -> Self {
        self.unmetered_network = true;
        self
    }

    /// Needs the user idle for `idle` (rounded up to a second; at least one).
    #[must_use]
    pub fn user_idle_for(mut self, idle: Duration) -> Self {
        let secs = idle.as_secs() + u64::from(idle.subsec_nanos() > 0);
        self.user_idle_secs = Some(u32::try_from(secs.max(1)).unwrap_or(u32::MAX));
        self
    }

    /// Whether nothing is asked.
    #[must_use]
    pub fn is_none(&self) -> bool {
        *self == Constraints::default()
    }

    /// Both sets at once: what a job of a constrained kind with its own needs waits for.
    #[must_use]
    pub fn and(self, other: Constraints) -> Constraints {
        Constraints {
            ac_power: self.ac_power || other.ac_power,
            battery_at_least: self.battery_at_least.max(other.battery_at_least),
            unmetered_network: self.unmetered_network || other.unmetered_network,
            user_idle_secs: self.user_idle_secs.max(other.user_idle_secs),
        }
    }

    /// The stored form (see the module's table).
    pub(crate) fn to_needs(self) -> i64 {
        let mut needs = 0;
        if self.ac_power {
            needs |= AC_POWER;
        }
        if self.unmetered_network {
            needs |= UNMETERED;
        }
        needs |= i64::from(self.battery_at_least.unwrap_or(0).min(100)) << BATTERY_SHIFT;
        needs |= i64::from(self.user_idle_secs.unwrap_or(0)) << IDLE_SHIFT;
        needs
    }

    /// Reads the stored form back; bits it does not know are ignored.
    pub(crate) fn from_needs(needs: i64) -> Constraints {
        let needs = needs.max(0);
        let battery = ((needs >> BATTERY_SHIFT) & 0xff).min(100) as u8;
        let idle = needs >> IDLE_SHIFT;
        Constraints {
            ac_power: needs & AC_POWER != 0,
            battery_at_least: (battery > 0).then_some(battery),
            unmetered_network: needs & UNMETERED != 0,
            user_idle_secs: (idle > 0).then(|| u32::try_from(idle).unwrap_or(u32::MAX)),
        }
    }
}

/// What the machine is like now, as a [`ConditionSource`](crate::conditions::ConditionSource)
/// reads it. `None` is "cannot tell here", which every constraint counts as met.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Conditions {
    /// On a charger (`true`), on battery (`false`).
    pub on_ac_power: Option<bool>,
    /// The battery's charge in percent, when there is a battery.
    pub battery_percent: Option<u8>,
    /// Whether the network in use is metered.
    pub metered_network: Option<bool>,
    /// How long, in seconds, the user has not touched keyboard or mouse.
    pub user_idle_secs: Option<u64>,
}

impl Conditions {
    /// Nothing known: every constraint counts as met.
    #[must_use]
    pub fn unknown() -> Self {
        Conditions::default()
    }

    /// On a charger or on battery, with the battery's charge if known.
    #[must_use]
    pub fn power(mut self, on_ac_power: Option<bool>, battery_percent: Option<u8>) -> Self {
        self.on_ac_power = on_ac_power;
        self.battery_percent = battery_percent.map(|p| p.min(100));
        self
    }

    /// Whether the network is metered.
    #[must_use]
    pub fn metered_network(mut self, metered: Option<bool>) -> Self {
        self.metered_network = metered;
        self
    }

    /// How long the user has been idle.
    #[must_use]
    pub fn user_idle(mut self, idle: Option<Duration>) -> Self {
        self.user_idle_secs = idle.map(|idle| idle.as_secs());
        self
    }

    /// Whether these conditions leave out something `needs` asks about (such a
    /// constraint counts as met).
    #[must_use]
    pub(crate) fn cannot_tell(&self, needs: &Constraints) -> bool {
        (needs.ac_power && self.on_ac_power.is_none())
            || (needs.battery_at_least.is_some()
                && (self.on_ac_power.is_none()
                    || (self.on_ac_power == Some(false) && self.battery_percent.is_none())))
            || (needs.unmetered_network && self.metered_network.is_none())
            || (needs.user_idle_secs.is_some() && self.user_idle_secs.is_none())
    }

    /// What `needs` waits for under these conditions; empty when it may start.
    #[must_use]
    pub fn unmet(&self, needs: &Constraints) -> Vec<WaitingFor> {
        let on_battery = self.on_ac_power == Some(false);
        let mut waiting = Vec::new();
        if needs.ac_power && on_battery {
            waiting.push(WaitingFor::AcPower);
        }
        if let (Some(at_least), true, Some(percent)) =
            (needs.battery_at_least, on_battery, self.battery_percent)
        {
            if percent < at_least {
                waiting.push(WaitingFor::Battery { at_least });
            }
        }
        if needs.unmetered_network && self.metered_network == Some(true) {
            waiting.push(WaitingFor::UnmeteredNetwork);
        }
        if let (Some(secs), Some(idle)) = (needs.user_idle_secs, self.user_idle_secs) {
            if idle < u64::from(secs) {
                waiting.push(WaitingFor::UserIdle { secs });
            }
        }
        waiting
    }

    /// When `needs` would be met if nothing but the user's idle time changed: the
    /// user's idle time grows on its own, every other condition needs an event.
    pub(crate) fn idle_met_in(&self, needs: &Constraints) -> Option<Duration> {
        let unmet = self.unmet(needs);
        match unmet.as_slice() {
            [WaitingFor::UserIdle { secs }] => {
                let idle = self.user_idle_secs.unwrap_or(0);
                Some(Duration::from_secs(
                    u64::from(*secs).saturating_sub(idle).max(1),
                ))
            }
            _ => None,
        }
    }
}

/// A constraint a queued job waits for ([`Job::waiting_for`](crate::queue::Job)), for
/// the UI to say why ("waiting for a charger").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(tag = "condition", rename_all = "camelCase")]
#[non_exhaustive]
pub enum WaitingFor {
    /// A charger.
    AcPower,
    /// A charger or the battery at `atLeast` percent.
    #[serde(rename_all = "camelCase")]
    Battery {
        /// The level asked for.
        at_least: u8,
    },
    /// A network that is not metered.
    UnmeteredNetwork,
    /// The user idle for `secs` seconds.
    UserIdle {
        /// The idle time asked for.
        secs: u32,
    },
    /// Other jobs to end first ([`EnqueueOptions::after`](crate::queue::EnqueueOptions::after)).
    Jobs {
        /// How many have not ended yet.
        left: u32,
    },
    /// A free slot: the kind's cap on running jobs, across every process, is full.
    #[serde(rename_all = "camelCase")]
    Slot {
        /// The cap.
        cap: u32,
        /// How many run now, in every process (more than the cap when it was lowered
        /// under them).
        running: u32,
        /// How many of the running jobs are held by a worker that stopped answering:
        /// its lease ran out, or its process on this machine is gone. Their slots come
        /// back at the next sweep (within a second).
        stale: u32,
        /// The earliest end of the running jobs' leases: a holder that is frozen or
        /// died unseen gives its slot back by then, a live one renews first.
        lease_ends_at: Option<Timestamp>,
    },
    /// The network: a job of the kind found its service unreachable
    /// ([`JobError::Offline`](crate::runner::JobError::Offline)). The kind tries one
    /// job at `nextTry` (one at a time, every `offline_retry`), or at once when the
    /// network comes back; when one gets through, every job of the kind may start.
    #[serde(rename_all = "camelCase")]
    Network {
        /// When the kind tries one job (now or earlier: trying now).
        next_try: Timestamp,
    },
    /// The service: a handler said it throttles the whole kind
    /// ([`JobError::ThrottleKind`](crate::runner::JobError::ThrottleKind)); no job of
    /// it starts before `until`, in any process.
    Service {
        /// When the kind may start jobs again.
        until: Timestamp,
    },
    /// A signal its handler waits for
    /// ([`JobContext::wait_for_signal`](crate::runner::JobContext::wait_for_signal);
    /// the job's `awaitsSignal` names it): it runs when the signal comes, or at
    /// `until`, the wait's deadline.
    Signal {
        /// The deadline.
        until: Timestamp,
    },
}

impl std::fmt::Display for WaitingFor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WaitingFor::AcPower => f.write_str("a charger"),
            WaitingFor::Battery { at_least } => write!(f, "a charger or {at_least}% battery"),
            WaitingFor::UnmeteredNetwork => f.write_str("an unmetered network"),
            WaitingFor::UserIdle { secs } => write!(f, "the user idle for {secs} s"),
            WaitingFor::Jobs { left } => write!(f, "{left} more job(s) to end"),
            WaitingFor::Slot {
                cap,
                running,
                stale: 0,
                ..
            } => write!(f, "a free slot ({running} running, cap {cap})"),
            WaitingFor::Slot {
                cap,
                running,
                stale,
                ..
            } => write!(
                f,
                "a free slot ({running} running, cap {cap}; {stale} held by a worker that stopped answering)"
            ),
            WaitingFor::Network { next_try } => {
                write!(f, "the network (the kind tries one job at {next_try})")
            }
            WaitingFor::Service { until } => write!(f, "the service, which asked to wait until {until}"),
            WaitingFor::Signal { until } => write!(f, "a signal, until {until}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_round_trip_through_their_stored_form() {
        let all = Constraints::none()
            .ac_power()
            .battery_at_least(30)
            .unmetered_network()
            .user_idle_for(Duration::from_millis(1500));
        assert_eq!(all.user_idle_secs, Some(2));
        for needs in [
            Constraints::none(),
            all,
            Constraints::none().battery_at_least(0),
        ] {
            assert_eq!(Constraints::from_needs(needs.to_needs()), needs);
        }
        assert_eq!(Constraints::none().to_needs(), 0);
    }

    #[test]
    fn what_cannot_be_told_counts_as_met() {
        let all = Constraints::none()
            .ac_power()
            .battery_at_least(30)
            .unmetered_network()
            .user_idle_for(Duration::from_secs(60));
        assert!(Conditions::unknown().unmet(&all).is_empty());
        let on_battery = Conditions::unknown().power(Some(false), Some(20));
        assert_eq!(
            on_battery.unmet(&all),
            [WaitingFor::AcPower, WaitingFor::Battery { at_least: 30 }]
        );
        // Charging: the battery's level does not matter.
        let charging = Conditions::unknown().power(Some(true), Some(5));
        assert!(charging
            .unmet(&Constraints::none().battery_at_least(30))
            .is_empty());
        let away = Conditions::unknown().user_idle(Some(Duration::from_secs(20)));
        assert_eq!(
            away.idle_met_in(&Constraints::none().user_idle_for(Duration::from_secs(60))),
            Some(Duration::from_secs(40))
        );
    }
}
