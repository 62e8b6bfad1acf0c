//! Windows: power and the battery from `GetSystemPowerStatus`, idle time from
//! `GetLastInputInfo` (kernel32 and user32, in every Windows since XP: declared here
//! rather than through a crate, for two calls). Metered networks are not read: the
//! only API for it is WinRT's `NetworkInformation` (the `windows` crate's WinRT
//! bindings), so a metered connection counts as unmetered, and the health says so.
//!
//! Written against the documented ABI; this repository's CI builds it for Windows and
//! runs it under Wine (scripts/test-platforms.sh), which has no battery:
//! `tests/conditions_system.rs` checks what it reads there.

use std::time::Duration;

use super::{Reading, SystemSettings};

#[derive(Default)]
pub(super) struct Buses {}

/// `SYSTEM_POWER_STATUS`.
#[repr(C)]
#[derive(Default)]
struct SystemPowerStatus {
    ac_line_status: u8,
    battery_flag: u8,
    battery_life_percent: u8,
    system_status_flag: u8,
    battery_life_time: u32,
    battery_full_life_time: u32,
}

/// `LASTINPUTINFO`.
#[repr(C)]
struct LastInputInfo {
    cb_size: u32,
    dw_time: u32,
}

#[link(name = "kernel32")]
extern "system" {
    fn GetSystemPowerStatus(status: *mut SystemPowerStatus) -> i32;
    fn GetTickCount() -> u32;
}

#[link(name = "user32")]
extern "system" {
    fn GetLastInputInfo(info: *mut LastInputInfo) -> i32;
}

pub(super) fn read(_settings: &SystemSettings, _buses: &mut Buses) -> Reading {
    let mut unknown = vec![
        "metered networks are not read on Windows: every network counts as unmetered".to_owned(),
    ];
    let mut status = SystemPowerStatus::default();
    // SAFETY: a plain struct the call fills; it keeps no pointer to it.
    let read = unsafe { GetSystemPowerStatus(&mut status) } != 0;
    // ACLineStatus: 0 offline, 1 online, 255 unknown. BatteryFlag 128: no battery.
    // BatteryLifePercent: 255 unknown.
    let on_ac_power = match status.ac_line_status {
        _ if !read => None,
        0 => Some(false),
        1 => Some(true),
        _ => None,
    };
    let battery_percent =
        (read && status.battery_flag & 128 == 0 && status.battery_life_percent <= 100)
            .then_some(status.battery_life_percent);
    if on_ac_power.is_none() {
        unknown.push(
            "Windows does not say whether it runs on AC power: a charger counts as plugged in"
                .to_owned(),
        );
    }
    let mut input = LastInputInfo {
        cb_size: std::mem::size_of::<LastInputInfo>() as u32,
        dw_time: 0,
    };
    // SAFETY: as above; `cb_size` is set as the API asks.
    let idle = if unsafe { GetLastInputInfo(&mut input) } != 0 {
        // Both are milliseconds since boot, wrapping every 49.7 days.
        // SAFETY: no arguments.
        let idle_ms = unsafe { GetTickCount() }.wrapping_sub(input.dw_time);
        Some(Duration::from_millis(u64::from(idle_ms)))
    } else {
        unknown.push("GetLastInputInfo failed: the user counts as idle".to_owned());
        None
    };
    Reading {
        on_ac_power,
        battery_percent,
        metered_network: None,
        idle,
        read_at: None,
        unknown,
    }
}
