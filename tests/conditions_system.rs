//! The operating system's conditions, read for real: on Linux from a sysfs tree and a
//! fake NetworkManager on a private D-Bus bus (`conditions_system/linux.rs`); on
//! Windows from `GetSystemPowerStatus` (run under Wine in CI, which has no battery).

#[cfg(target_os = "linux")]
#[path = "conditions_system/linux.rs"]
mod linux;

/// Without a battery, Windows cannot say the machine runs on one: power is unknown or
/// plugged in, never "on battery", and metered networks are said to be unread.
#[cfg(windows)]
#[test]
fn windows_power_without_a_battery_is_never_on_battery() {
    use std::time::Duration;
    use tauri_plugin_jobs::clock::Timestamp;
    use tauri_plugin_jobs::conditions::{ConditionSource, SystemConditions, SystemSettings};

    let source = SystemConditions::new(SystemSettings::default().poll(Duration::from_secs(3600)));
    let now = source.conditions(Timestamp::from_millis(1_800_000_000_000));
    if now.battery_percent.is_some() {
        eprintln!("skipped: this machine has a battery ({now:?})");
        return;
    }
    assert_ne!(now.on_ac_power, Some(false), "{now:?}");
    assert_eq!(now.metered_network, None);
    let reason = source.health().reason.unwrap_or_default();
    assert!(reason.contains("metered networks are not read"), "{reason}");
}

#[cfg(not(any(target_os = "linux", windows)))]
#[test]
fn the_system_conditions_are_read_on_linux_and_windows_here() {
    eprintln!("skipped: this system's conditions are compiled here, not read");
}
