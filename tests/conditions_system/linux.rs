//! The operating system's conditions, read for real on Linux: power from a sysfs tree
//! the test writes, NetworkManager's metered flag from a fake service on a private
//! D-Bus bus the test starts (skipped, with the reason, where the bus cannot start;
//! a skip fails under `CI=true`).
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gio::prelude::*;
use tauri_plugin_jobs::clock::Timestamp;
use tauri_plugin_jobs::conditions::{ConditionSource, SystemConditions, SystemSettings};
use tauri_plugin_jobs::health::HealthStatus;

#[path = "../support/dbus.rs"]
mod dbus;
use dbus::start_bus;

const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

fn write(dir: &std::path::Path, supply: &str, files: &[(&str, &str)]) {
    let path = dir.join(supply);
    std::fs::create_dir_all(&path).unwrap();
    for (name, text) in files {
        std::fs::write(path.join(name), format!("{text}\n")).unwrap();
    }
}

/// Settings that never touch this machine's buses: a socket that is not there.
fn no_buses(dir: &std::path::Path) -> SystemSettings {
    let missing = format!("unix:path={}", dir.join("no-bus").display());
    SystemSettings::default()
        .power_supply(dir.join("power_supply"))
        .system_bus(missing.clone())
        .session_bus(missing)
        .poll(Duration::from_secs(3600))
}

#[test]
fn power_is_read_from_the_power_supply_tree_and_a_change_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let supplies = dir.path().join("power_supply");
    write(&supplies, "AC", &[("type", "Mains"), ("online", "0")]);
    write(
        &supplies,
        "BAT0",
        &[
            ("type", "Battery"),
            ("capacity", "42"),
            ("status", "Discharging"),
        ],
    );
    // A wireless mouse's battery is not the machine's.
    write(
        &supplies,
        "hidpp_battery_0",
        &[("type", "Battery"), ("scope", "Device"), ("capacity", "5")],
    );
    let source = SystemConditions::new(no_buses(dir.path()));
    let now = source.conditions(NOW);
    assert_eq!(now.on_ac_power, Some(false));
    assert_eq!(now.battery_percent, Some(42));

    let woken = Arc::new(AtomicU32::new(0));
    let count = woken.clone();
    source.on_change(Box::new(move || {
        count.fetch_add(1, Ordering::SeqCst);
    }));
    assert!(!source.refresh(), "nothing changed");
    write(&supplies, "AC", &[("online", "1")]);
    assert!(source.refresh());
    assert_eq!(source.conditions(NOW).on_ac_power, Some(true));
    assert_eq!(woken.load(Ordering::SeqCst), 1);

    // What cannot be told is in the health, and counts as met.
    let health = source.health();
    assert_eq!(health.status, HealthStatus::Warning);
    let reason = health.reason.unwrap();
    assert!(
        reason.contains("NetworkManager does not answer"),
        "{reason}"
    );
    assert!(reason.contains("idle time"), "{reason}");
    assert_eq!(source.conditions(NOW).metered_network, None);
}

#[test]
fn no_power_supply_at_all_is_unknown_and_said_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("power_supply")).unwrap();
    let source = SystemConditions::new(no_buses(dir.path()));
    assert_eq!(source.conditions(NOW).on_ac_power, None);
    let reason = source.health().reason.unwrap();
    assert!(reason.contains("no power supply under"), "{reason}");
    // A laptop without a Mains entry: the battery's status tells.
    write(
        &dir.path().join("power_supply"),
        "BAT1",
        &[
            ("type", "Battery"),
            ("capacity", "80"),
            ("status", "Charging"),
        ],
    );
    source.refresh();
    assert_eq!(source.conditions(NOW).on_ac_power, Some(true));
}

const NETWORK_MANAGER: &str = r#"<node>
  <interface name="org.freedesktop.NetworkManager">
    <property name="Metered" type="u" access="read"/>
  </interface>
</node>"#;

/// A fake NetworkManager on `address` whose `Metered` is read from `metered`; served
/// on a thread of its own until the process ends.
fn serve_network_manager(address: String, metered: Arc<AtomicU32>) {
    let service = dbus::Service {
        name: "org.freedesktop.NetworkManager",
        path: "/org/freedesktop/NetworkManager",
        xml: NETWORK_MANAGER,
        interface: "org.freedesktop.NetworkManager",
    };
    dbus::serve(
        address,
        service,
        |_, invocation| invocation.return_value(None),
        move |_| metered.load(Ordering::SeqCst).to_variant(),
    );
}

#[test]
fn metered_comes_from_network_manager_on_the_bus() {
    let bus = match start_bus() {
        Ok(bus) => bus,
        Err(reason) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "skipped under CI: {reason}"
            );
            eprintln!("skipped: {reason}");
            return;
        }
    };
    // 1: metered; 4: guessed not metered.
    let metered = Arc::new(AtomicU32::new(1));
    serve_network_manager(bus.address.clone(), metered.clone());
    let dir = tempfile::tempdir().unwrap();
    let settings = no_buses(dir.path()).system_bus(bus.address.clone());
    let source = SystemConditions::new(settings);
    assert_eq!(source.conditions(NOW).metered_network, Some(true));
    let reason = source.health().reason.unwrap_or_default();
    assert!(!reason.contains("NetworkManager"), "{reason}");

    metered.store(4, Ordering::SeqCst);
    assert!(source.refresh(), "a change of network is a change");
    assert_eq!(source.conditions(NOW).metered_network, Some(false));
    // 0: NetworkManager does not know.
    metered.store(0, Ordering::SeqCst);
    source.refresh();
    assert_eq!(source.conditions(NOW).metered_network, None);
}
