//! Linux: power from sysfs, metered from NetworkManager, idle time from the desktop
//! session, over GIO's D-Bus.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gio::prelude::*;
use gio::{BusType, Cancellable, DBusCallFlags, DBusConnection, DBusConnectionFlags};

use super::{Reading, SystemSettings};

/// How long one D-Bus call may take.
const CALL_TIMEOUT_MS: i32 = 200;

/// The connections, kept between readings; `None` once one failed, tried again
/// at the next reading.
#[derive(Default)]
pub(super) struct Buses {
    system: Option<DBusConnection>,
    session: Option<DBusConnection>,
}

pub(super) fn read(settings: &SystemSettings, buses: &mut Buses) -> Reading {
    let mut unknown = Vec::new();
    let (on_ac_power, battery_percent) = read_power_supply(&settings.power_supply);
    if on_ac_power.is_none() {
        unknown.push(format!(
            "no power supply under {} (a desktop without a battery, or a virtual machine): \
             a charger counts as plugged in",
            settings.power_supply.display()
        ));
    }
    let metered_network = match metered(settings, buses) {
        Ok(metered) => metered,
        Err(reason) => {
            unknown.push(format!(
                "NetworkManager does not answer ({reason}): every network counts as unmetered"
            ));
            None
        }
    };
    let idle = match idle(settings, buses) {
        Ok(idle) => Some(idle),
        Err(reason) => {
            unknown.push(format!(
                "the desktop session does not tell idle time ({reason}): the user counts as idle"
            ));
            None
        }
    };
    Reading {
        on_ac_power,
        battery_percent,
        metered_network,
        idle,
        read_at: None,
        unknown,
    }
}

fn connect(
    slot: &mut Option<DBusConnection>,
    address: Option<&str>,
    bus: BusType,
) -> Result<DBusConnection, String> {
    if let Some(connection) = slot.as_ref().filter(|c| !c.is_closed()) {
        return Ok(connection.clone());
    }
    if address.is_none() && !bus_exists(bus) {
        // Never GIO's autolaunch of a session bus, nor a wait for a socket that
        // is not there.
        return Err(match bus {
            BusType::System => "no system bus".to_owned(),
            _ => "no session bus".to_owned(),
        });
    }
    let connection = match address {
        Some(address) => DBusConnection::for_address_sync(
            address,
            DBusConnectionFlags::AUTHENTICATION_CLIENT
                | DBusConnectionFlags::MESSAGE_BUS_CONNECTION,
            None,
            None::<&Cancellable>,
        ),
        // A private connection, not GIO's shared one: that one ends the process
        // (`exit-on-close`) when the bus goes away, as a restart of dbus would do.
        None => gio::dbus_address_get_for_bus_sync(bus, None::<&Cancellable>).and_then(|address| {
            DBusConnection::for_address_sync(
                &address,
                DBusConnectionFlags::AUTHENTICATION_CLIENT
                    | DBusConnectionFlags::MESSAGE_BUS_CONNECTION,
                None,
                None::<&Cancellable>,
            )
        }),
    }
    .map_err(|error| error.message().to_owned())?;
    *slot = Some(connection.clone());
    Ok(connection)
}

/// Whether the bus GIO would connect to is there: its address in the environment,
/// or its socket where the freedesktop conventions put it.
fn bus_exists(bus: BusType) -> bool {
    let (variable, sockets): (&str, Vec<std::path::PathBuf>) = match bus {
        BusType::System => (
            "DBUS_SYSTEM_BUS_ADDRESS",
            vec![
                "/run/dbus/system_bus_socket".into(),
                "/var/run/dbus/system_bus_socket".into(),
            ],
        ),
        _ => (
            "DBUS_SESSION_BUS_ADDRESS",
            std::env::var_os("XDG_RUNTIME_DIR")
                .map(|dir| std::path::PathBuf::from(dir).join("bus"))
                .into_iter()
                .collect(),
        ),
    };
    std::env::var_os(variable).is_some_and(|value| !value.is_empty())
        || sockets.iter().any(|socket| socket.exists())
}

fn call(
    connection: &DBusConnection,
    (name, path, interface, method): (&str, &str, &str, &str),
    arguments: Option<&gio::glib::Variant>,
) -> Result<gio::glib::Variant, String> {
    connection
        .call_sync(
            Some(name),
            path,
            interface,
            method,
            arguments,
            None,
            DBusCallFlags::NO_AUTO_START,
            CALL_TIMEOUT_MS,
            None::<&Cancellable>,
        )
        .map_err(|error| error.message().to_owned())
}

/// NetworkManager's `Metered`: 1 yes, 3 guessed yes, 2 no, 4 guessed no, 0 unknown.
fn metered(settings: &SystemSettings, buses: &mut Buses) -> Result<Option<bool>, String> {
    let result = connect(
        &mut buses.system,
        settings.system_bus.as_deref(),
        BusType::System,
    )
    .and_then(|connection| {
        call(
            &connection,
            (
                "org.freedesktop.NetworkManager",
                "/org/freedesktop/NetworkManager",
                "org.freedesktop.DBus.Properties",
                "Get",
            ),
            Some(&("org.freedesktop.NetworkManager", "Metered").to_variant()),
        )
    });
    let reply = result.inspect_err(|_| buses.system = None)?;
    let value = reply
        .child_value(0)
        .as_variant()
        .and_then(|value| value.get::<u32>())
        .ok_or_else(|| format!("Metered is {}, not a number", reply.type_()))?;
    Ok(match value {
        1 | 3 => Some(true),
        2 | 4 => Some(false),
        _ => None,
    })
}

/// The session's idle time: GNOME's idle monitor (ms), else the screen saver's (s).
fn idle(settings: &SystemSettings, buses: &mut Buses) -> Result<Duration, String> {
    let connection = connect(
        &mut buses.session,
        settings.session_bus.as_deref(),
        BusType::Session,
    )
    .inspect_err(|_| buses.session = None)?;
    let mutter = call(
        &connection,
        (
            "org.gnome.Mutter.IdleMonitor",
            "/org/gnome/Mutter/IdleMonitor/Core",
            "org.gnome.Mutter.IdleMonitor",
            "GetIdletime",
        ),
        None,
    );
    if let Some(ms) = mutter
        .ok()
        .and_then(|reply| reply.child_value(0).get::<u64>())
    {
        return Ok(Duration::from_millis(ms));
    }
    let saver = call(
        &connection,
        (
            "org.freedesktop.ScreenSaver",
            "/org/freedesktop/ScreenSaver",
            "org.freedesktop.ScreenSaver",
            "GetSessionIdleTime",
        ),
        None,
    )?;
    // KDE's screen locker answers in milliseconds (KIdleTime), the others in seconds.
    let kde = std::env::var("XDG_CURRENT_DESKTOP").is_ok_and(|desktop| desktop.contains("KDE"));
    saver
        .child_value(0)
        .get::<u32>()
        .map(|value| {
            if kde {
                Duration::from_millis(u64::from(value))
            } else {
                Duration::from_secs(u64::from(value))
            }
        })
        .ok_or_else(|| format!("GetSessionIdleTime answered {}", saver.type_()))
}

/// What a power-supply directory says: on AC power, and the system battery's charge.
/// `None` for what it does not tell (no supplies at all, as on most desktops and VMs).
fn read_power_supply(dir: &Path) -> (Option<bool>, Option<u8>) {
    let read = |path: PathBuf| {
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (None, None);
    };
    let mut names: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    names.sort();
    let (mut mains, mut battery_status, mut percent) = (None::<bool>, None::<String>, None);
    for supply in names {
        let kind = read(supply.join("type")).unwrap_or_default();
        match kind.as_str() {
            "Mains" | "USB" => {
                if let Some(online) = read(supply.join("online")) {
                    mains = Some(mains.unwrap_or(false) || online == "1");
                }
            }
            "Battery" => {
                // A mouse's or a headset's battery says `Device`; the machine's
                // own says `System` or nothing.
                if read(supply.join("scope")).as_deref() == Some("Device") || percent.is_some() {
                    continue;
                }
                percent = read(supply.join("capacity")).and_then(|c| c.parse::<u8>().ok());
                battery_status = read(supply.join("status"));
            }
            _ => {}
        }
    }
    let on_ac = match (mains, battery_status.as_deref()) {
        (Some(online), _) => Some(online),
        (None, Some("Discharging")) => Some(false),
        (None, Some(_)) => Some(true),
        (None, None) => None,
    };
    (on_ac, percent.map(|p| p.min(100)))
}
