//! Linux: systemd-logind's `Inhibit` on the system bus, through GIO (which every
//! Tauri app on Linux links already). The answer is a file descriptor: the request
//! holds while it is open.

use std::os::fd::{FromRawFd, OwnedFd};

use gio::prelude::*;
use gio::{Cancellable, DBusCallFlags, DBusConnection, DBusConnectionFlags, UnixFDList};

use super::SystemInhibitor;

/// How long logind may take to answer: it answers at once or not at all.
const CALL_TIMEOUT_MS: i32 = 5_000;

pub(super) fn inhibit(inhibitor: &SystemInhibitor, why: &str) -> Result<Box<dyn Send>, String> {
    let connection = connect(inhibitor.system_bus.as_deref())?;
    let arguments = ("sleep", inhibitor.asker(), why, "block").to_variant();
    let (answer, fds) = connection
        .call_with_unix_fd_list_sync(
            Some("org.freedesktop.login1"),
            "/org/freedesktop/login1",
            "org.freedesktop.login1.Manager",
            "Inhibit",
            Some(&arguments),
            Some(gio::glib::VariantTy::new("(h)").expect("a valid type")),
            DBusCallFlags::NO_AUTO_START,
            CALL_TIMEOUT_MS,
            None::<&UnixFDList>,
            None::<&Cancellable>,
        )
        .map_err(|error| format!("logind refused or did not answer: {}", error.message()))?;
    if fds.length() < 1 {
        return Err("logind answered without a file descriptor".into());
    }
    // The answer names the descriptor by its place in the list. `get` hands back a
    // duplicate that is ours to close; the list closes its own.
    let index = answer
        .try_child_value(0)
        .and_then(|handle| handle.get::<gio::glib::variant::Handle>())
        .map_or(0, |handle| handle.0);
    let fd = fds
        .get(index)
        .map_err(|error| format!("logind's file descriptor: {}", error.message()))?;
    // SAFETY: a descriptor GIO just duplicated for us, owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // The connection goes with this call: the request is the descriptor alone.
    let _ = connection.close_sync(None::<&Cancellable>);
    Ok(Box::new(fd))
}

/// A private connection (not GIO's shared one, which ends the process when the bus
/// goes away): to `address`, or to the system bus.
fn connect(address: Option<&str>) -> Result<DBusConnection, String> {
    let flags =
        DBusConnectionFlags::AUTHENTICATION_CLIENT | DBusConnectionFlags::MESSAGE_BUS_CONNECTION;
    let address = match address {
        Some(address) => address.to_owned(),
        None => {
            let variable = std::env::var("DBUS_SYSTEM_BUS_ADDRESS").unwrap_or_default();
            let socket = [
                "/run/dbus/system_bus_socket",
                "/var/run/dbus/system_bus_socket",
            ]
            .into_iter()
            .find(|socket| std::path::Path::new(socket).exists());
            match (variable.is_empty(), socket) {
                (false, _) => variable,
                (true, Some(socket)) => format!("unix:path={socket}"),
                (true, None) => return Err("no system bus (so no logind) on this machine".into()),
            }
        }
    };
    DBusConnection::for_address_sync(&address, flags, None, None::<&Cancellable>)
        .map_err(|error| format!("the system bus: {}", error.message()))
}
