//! macOS: AC power from IOKit's `IOPSGetTimeRemainingEstimate` (unlimited on AC
//! power), idle time from CoreGraphics' `CGEventSourceSecondsSinceLastEventType`
//! (single C functions of the system frameworks, declared here rather than through a
//! crate). Not read: the battery's level (IOKit's power-source dictionaries, through
//! CoreFoundation) and metered networks (Network.framework's `isExpensive`, an
//! Objective-C block API); those count as met, and the health says so.
//!
//! Written against the documented ABI; this repository's CI compiles and lints it
//! (scripts/test-platforms.sh) but cannot run it: apps run it on macOS.

use std::time::Duration;

use super::{Reading, SystemSettings};

#[derive(Default)]
pub(super) struct Buses {}

/// `kIOPSTimeRemainingUnlimited`: on AC power.
const TIME_REMAINING_UNLIMITED: f64 = -2.0;
/// `kIOPSTimeRemainingUnknown`: on battery, the estimate not known yet.
const TIME_REMAINING_UNKNOWN: f64 = -1.0;
/// `kCGEventSourceStateCombinedSessionState`.
const COMBINED_SESSION_STATE: i32 = 0;
/// `kCGAnyInputEventType`.
const ANY_INPUT_EVENT: u32 = !0;

#[link(name = "IOKit", kind = "framework")]
extern "C" {
    fn IOPSGetTimeRemainingEstimate() -> f64;
}

#[link(name = "CoreGraphics", kind = "framework")]
extern "C" {
    fn CGEventSourceSecondsSinceLastEventType(state: i32, event_type: u32) -> f64;
}

pub(super) fn read(_settings: &SystemSettings, _buses: &mut Buses) -> Reading {
    // SAFETY: no arguments, a plain number back.
    let remaining = unsafe { IOPSGetTimeRemainingEstimate() };
    let on_ac_power = if remaining == TIME_REMAINING_UNLIMITED {
        Some(true)
    } else if remaining == TIME_REMAINING_UNKNOWN || remaining >= 0.0 {
        Some(false)
    } else {
        None
    };
    // SAFETY: constants the API defines, a plain number back.
    let idle =
        unsafe { CGEventSourceSecondsSinceLastEventType(COMBINED_SESSION_STATE, ANY_INPUT_EVENT) };
    let idle = (idle.is_finite() && idle >= 0.0).then(|| Duration::from_secs_f64(idle.min(1e9)));
    Reading {
        on_ac_power,
        battery_percent: None,
        metered_network: None,
        idle,
        read_at: None,
        unknown: vec![
            "the battery's level and metered networks are not read on macOS: \
             they count as met"
                .to_owned(),
        ],
    }
}
