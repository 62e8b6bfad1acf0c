//! What the operating system says: [`SystemConditions`].
//!
//! On Linux:
//! - power from `/sys/class/power_supply` (a `Mains` or `USB` supply's `online`, a
//!   system battery's `capacity` and `status`; batteries of devices such as a mouse
//!   are left out);
//! - metered from NetworkManager's `Metered` property on the system bus;
//! - idle time from the desktop session's bus: GNOME's `org.gnome.Mutter.IdleMonitor`,
//!   else `org.freedesktop.ScreenSaver` (KDE and others).
//!
//! D-Bus goes through GIO, which every Tauri app on Linux links already (WebKitGTK and
//! GTK use it), so this adds no library to the app. A thread reads all of it at start
//! and then every [`SystemSettings::poll`] (10 s): a few small files and at most two
//! D-Bus calls, and it wakes the runners only when power or the network changed.
//!
//! On macOS and Windows nothing is read yet: every condition is unknown (met), and
//! [`health`](super::ConditionSource::health) says so.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex, Weak};
use std::time::Duration;

use super::{ConditionSource, Waker};
use crate::clock::{Clock, SystemClock};
use crate::locks::lock;
use crate::model::{Conditions, Health, Timestamp};

/// Where [`SystemConditions`] reads from, and how often.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[must_use]
pub struct SystemSettings {
    /// The sysfs directory of power supplies (Linux): `/sys/class/power_supply`.
    pub power_supply: PathBuf,
    /// The D-Bus address NetworkManager answers on; `None`: the system bus.
    pub system_bus: Option<String>,
    /// The D-Bus address of the desktop session; `None`: the session bus.
    pub session_bus: Option<String>,
    /// How often the conditions are read again.
    pub poll: Duration,
}

impl Default for SystemSettings {
    fn default() -> Self {
        SystemSettings {
            power_supply: PathBuf::from("/sys/class/power_supply"),
            system_bus: None,
            session_bus: None,
            poll: Duration::from_secs(10),
        }
    }
}

impl SystemSettings {
    /// Reads power supplies from `dir` instead of `/sys/class/power_supply`.
    pub fn power_supply(mut self, dir: impl Into<PathBuf>) -> Self {
        self.power_supply = dir.into();
        self
    }

    /// Asks NetworkManager on the bus at `address` instead of the system bus.
    pub fn system_bus(mut self, address: impl Into<String>) -> Self {
        self.system_bus = Some(address.into());
        self
    }

    /// Asks for idle time on the bus at `address` instead of the session bus.
    pub fn session_bus(mut self, address: impl Into<String>) -> Self {
        self.session_bus = Some(address.into());
        self
    }

    /// Reads again every `poll` (at least 100 ms).
    pub fn poll(mut self, poll: Duration) -> Self {
        self.poll = poll.max(Duration::from_millis(100));
        self
    }
}

/// The conditions as the operating system tells them; see the module's notes for
/// where each comes from. Clones share one reading thread, which ends when the last
/// clone is dropped.
#[derive(Clone)]
pub struct SystemConditions {
    inner: Arc<Inner>,
}

struct Inner {
    settings: SystemSettings,
    // Mutex: written by the reading thread every poll, read at claims.
    read: Mutex<Reading>,
    // Mutex: added once per queue, called on a change.
    wakers: Mutex<Vec<Waker>>,
    // Mutex: held only by the reading thread and `refresh`.
    buses: Mutex<os::Buses>,
    // Dropped with the last clone: the thread's wait ends at once.
    _stop: mpsc::Sender<()>,
}

/// One reading of everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Reading {
    on_ac_power: Option<bool>,
    battery_percent: Option<u8>,
    metered_network: Option<bool>,
    idle_since: Option<Timestamp>,
    /// What could not be read, for the health.
    unknown: Vec<String>,
}

impl std::fmt::Debug for SystemConditions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemConditions")
            .field("settings", &self.inner.settings)
            .field("read", &*lock(&self.inner.read))
            .finish_non_exhaustive()
    }
}

impl Default for SystemConditions {
    fn default() -> Self {
        SystemConditions::new(SystemSettings::default())
    }
}

impl SystemConditions {
    /// Reads the conditions once now (a few milliseconds: files and D-Bus calls with
    /// a short timeout), then on a thread of its own every `settings.poll`.
    #[must_use]
    pub fn new(settings: SystemSettings) -> Self {
        let (stop, stopped) = mpsc::channel();
        let poll = settings.poll;
        let source = SystemConditions {
            inner: Arc::new(Inner {
                settings,
                read: Mutex::new(Reading::default()),
                wakers: Mutex::new(Vec::new()),
                buses: Mutex::new(os::Buses::default()),
                _stop: stop,
            }),
        };
        source.refresh();
        let weak: Weak<Inner> = Arc::downgrade(&source.inner);
        let spawned = std::thread::Builder::new()
            .name("jobs-conditions".into())
            .spawn(move || {
                while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(poll) {
                    match weak.upgrade() {
                        Some(inner) => {
                            SystemConditions { inner }.refresh();
                        }
                        None => break,
                    }
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "no thread to read power and network conditions; read once only");
        }
        source
    }

    /// Reads everything again now; whether power or the network changed (the queues
    /// it was given to are woken then).
    pub fn refresh(&self) -> bool {
        let now = SystemClock.now();
        let reading = {
            let mut buses = lock(&self.inner.buses);
            os::read(&self.inner.settings, &mut buses, now)
        };
        let changed = {
            let mut read = lock(&self.inner.read);
            let changed = (read.on_ac_power, read.battery_percent, read.metered_network)
                != (
                    reading.on_ac_power,
                    reading.battery_percent,
                    reading.metered_network,
                );
            *read = reading;
            changed
        };
        if changed {
            for waker in lock(&self.inner.wakers).iter() {
                waker();
            }
        }
        changed
    }
}

impl ConditionSource for SystemConditions {
    fn conditions(&self, now: Timestamp) -> Conditions {
        let read = lock(&self.inner.read);
        let idle = read.idle_since.map(|since| {
            Duration::from_millis(now.as_millis().saturating_sub(since.as_millis()).max(0) as u64)
        });
        Conditions::unknown()
            .power(read.on_ac_power, read.battery_percent)
            .metered_network(read.metered_network)
            .user_idle(idle)
    }

    fn on_change(&self, waker: Waker) {
        lock(&self.inner.wakers).push(waker);
    }

    fn health(&self) -> Health {
        let read = lock(&self.inner.read);
        if read.unknown.is_empty() {
            Health::healthy()
        } else {
            Health::warning(format!(
                "{}; constraints on what cannot be told count as met",
                read.unknown.join("; ")
            ))
        }
    }
}

/// What a power-supply directory says: on AC power, and the system battery's charge.
/// `None` for what it does not tell (no supplies at all, as on most desktops and VMs).
pub(crate) fn read_power_supply(dir: &Path) -> (Option<bool>, Option<u8>) {
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

#[cfg(target_os = "linux")]
mod os {
    use std::time::Duration;

    use gio::prelude::*;
    use gio::{BusType, Cancellable, DBusCallFlags, DBusConnection, DBusConnectionFlags};

    use super::{read_power_supply, Reading, SystemSettings};
    use crate::model::Timestamp;

    /// How long one D-Bus call may take.
    const CALL_TIMEOUT_MS: i32 = 200;

    /// The connections, kept between readings; `None` once one failed, tried again
    /// at the next reading.
    #[derive(Default)]
    pub(super) struct Buses {
        system: Option<DBusConnection>,
        session: Option<DBusConnection>,
    }

    pub(super) fn read(settings: &SystemSettings, buses: &mut Buses, now: Timestamp) -> Reading {
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
        let idle_since = match idle(settings, buses) {
            Ok(idle) => {
                let idle_ms = i64::try_from(idle.as_millis()).unwrap_or(i64::MAX);
                Some(Timestamp::from_millis(
                    now.as_millis().saturating_sub(idle_ms),
                ))
            }
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
            idle_since,
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
            None => gio::bus_get_sync(bus, None::<&Cancellable>),
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
        saver
            .child_value(0)
            .get::<u32>()
            .map(|secs| Duration::from_secs(u64::from(secs)))
            .ok_or_else(|| format!("GetSessionIdleTime answered {}", saver.type_()))
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    use super::{Reading, SystemSettings};
    use crate::model::Timestamp;

    #[derive(Default)]
    pub(super) struct Buses;

    pub(super) fn read(_settings: &SystemSettings, _buses: &mut Buses, _now: Timestamp) -> Reading {
        Reading {
            unknown: vec![format!(
                "power, metered networks and idle time are not read on {} yet",
                std::env::consts::OS
            )],
            ..Reading::default()
        }
    }
}
