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
//! and then every [`SystemSettings::poll`] (10 s): a few small files and at most three
//! D-Bus calls, and it wakes the runners only when power or the network changed.
//!
//! On Windows: power and the battery from `GetSystemPowerStatus`, idle time from
//! `GetLastInputInfo`; metered networks are not read (WinRT only). On macOS: AC power
//! from IOKit's `IOPSGetTimeRemainingEstimate`, idle time from CoreGraphics; the
//! battery's level and metered networks are not read. What is not read is unknown
//! (met), and [`health`](super::ConditionSource::health) says so. Both are written
//! against the documented C ABI and type-checked, but compiled and run only by apps
//! on those systems: this repository's CI runs on Linux.

use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex, Weak};
use std::time::Duration;

use super::{ConditionSource, Waker};
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
    /// How long the user had been idle when this was read.
    idle: Option<Duration>,
    /// When it was read (awake time: idle time does not grow while the machine sleeps).
    read_at: Option<std::time::Instant>,
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
        let reading = {
            let mut buses = lock(&self.inner.buses);
            let mut reading = os::read(&self.inner.settings, &mut buses);
            reading.read_at = Some(std::time::Instant::now());
            reading
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
    fn conditions(&self, _now: Timestamp) -> Conditions {
        let read = lock(&self.inner.read);
        // Idle since the reading, unless the user came back: the next reading says.
        let since_read = read.read_at.map_or(Duration::ZERO, |at| at.elapsed());
        let idle = read.idle.map(|idle| idle + since_read);
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

// The system's own readings come with the `system-conditions` feature (Cargo.toml).
#[cfg(all(feature = "system-conditions", target_os = "linux"))]
mod linux;
#[cfg(all(feature = "system-conditions", target_os = "linux"))]
use linux as os;
#[cfg(all(feature = "system-conditions", target_os = "macos"))]
mod macos;
#[cfg(all(feature = "system-conditions", target_os = "macos"))]
use macos as os;
#[cfg(all(feature = "system-conditions", windows))]
mod windows;
#[cfg(all(feature = "system-conditions", windows))]
use windows as os;

#[cfg(not(all(
    feature = "system-conditions",
    any(target_os = "linux", target_os = "macos", windows)
)))]
mod os {
    use super::{Reading, SystemSettings};

    // Braces, not a unit struct: the other systems' `Buses::default()` builds it.
    #[derive(Default)]
    pub(super) struct Buses {}

    pub(super) fn read(_settings: &SystemSettings, _buses: &mut Buses) -> Reading {
        let why = if cfg!(feature = "system-conditions") {
            format!("not read on {}", std::env::consts::OS)
        } else {
            "not read: the app is built without the `system-conditions` feature".to_owned()
        };
        Reading {
            unknown: vec![format!("power, metered networks and idle time are {why}")],
            ..Reading::default()
        }
    }
}
