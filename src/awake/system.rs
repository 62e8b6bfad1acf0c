//! This system's way of keeping the machine awake: [`SystemInhibitor`].

use super::Inhibitor;

/// Asks this system not to sleep on its idle timer:
///
/// - **Linux**: systemd-logind's `Inhibit("sleep", who, why, "block")` on the system
///   bus, through GIO (the `system-conditions` feature). The request is a file
///   descriptor logind hands back: closing it (or the process ending, however it
///   ends) lets go. Suspend on the idle timer waits; closing the lid still suspends
///   (logind's `LidSwitchIgnoreInhibited` is on by default), and a user's own suspend
///   from the desktop goes ahead for the active local user (polkit's
///   `suspend-ignore-inhibit`, allowed to them by default), after the desktop may
///   name the app that holds it. The display may still turn off.
/// - **Windows**: a power request (`PowerCreateRequest`, `PowerSetRequest` with
///   `PowerRequestSystemRequired`), whose reason Windows shows in `powercfg
///   /requests`; the handle closes with the process. Where the system has no power
///   requests (Wine), `SetThreadExecutionState` on the keep-awake thread stands in.
///   The display may still turn off, and a user's sleep from the Start menu or the
///   lid goes ahead.
/// - **macOS**: an IOKit power assertion of type `PreventUserIdleSystemSleep`, named
///   with the reason (`pmset -g assertions` lists it); the system drops it when the
///   process ends. The display may still sleep; a user's sleep goes ahead.
///
/// Elsewhere, and on Linux without the feature, every request fails saying why.
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct SystemInhibitor {
    /// The D-Bus address logind answers on; `None`: the system bus.
    #[cfg_attr(
        not(all(target_os = "linux", feature = "system-conditions")),
        allow(dead_code)
    )]
    system_bus: Option<String>,
    /// Who asks, as the system shows it (the app's name).
    who: Option<String>,
}

impl SystemInhibitor {
    /// This system's means, on its usual bus.
    pub fn new() -> Self {
        SystemInhibitor::default()
    }

    /// Asks logind on the D-Bus at `address` rather than on the system bus (Linux;
    /// for tests with a bus of their own).
    pub fn system_bus(mut self, address: impl Into<String>) -> Self {
        self.system_bus = Some(address.into());
        self
    }

    /// Who asks, as the system shows it: the app's name (`tauri-plugin-jobs` when
    /// unset).
    pub fn who(mut self, who: impl Into<String>) -> Self {
        self.who = Some(who.into());
        self
    }

    #[cfg_attr(
        not(any(
            all(target_os = "linux", feature = "system-conditions"),
            windows,
            target_os = "macos"
        )),
        allow(dead_code)
    )]
    fn asker(&self) -> &str {
        self.who.as_deref().unwrap_or("tauri-plugin-jobs")
    }
}

impl Inhibitor for SystemInhibitor {
    fn inhibit(&self, why: &str) -> Result<Box<dyn Send>, String> {
        platform::inhibit(self, why)
    }
}

#[cfg(all(target_os = "linux", feature = "system-conditions"))]
#[path = "linux.rs"]
mod platform;

#[cfg(windows)]
#[path = "windows.rs"]
mod platform;

#[cfg(target_os = "macos")]
#[path = "macos.rs"]
mod platform;

#[cfg(not(any(
    all(target_os = "linux", feature = "system-conditions"),
    windows,
    target_os = "macos"
)))]
mod platform {
    use super::SystemInhibitor;

    pub(super) fn inhibit(_: &SystemInhibitor, _: &str) -> Result<Box<dyn Send>, String> {
        Err(if cfg!(target_os = "linux") {
            "built without the `system-conditions` feature, which asks logind".to_owned()
        } else {
            "this system has no means the plugin knows of".to_owned()
        })
    }
}
