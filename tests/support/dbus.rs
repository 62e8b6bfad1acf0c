//! A private D-Bus bus for a test (`dbus-daemon --session`, forked), killed when
//! dropped, and a fake system service served on it; shared by the tests of what the
//! plugin asks of the system bus (NetworkManager, logind).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// A private bus, killed when dropped.
pub struct Bus {
    pub address: String,
    pid: i32,
}

impl Drop for Bus {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}

pub fn start_bus() -> Result<Bus, String> {
    let mut child = Command::new("dbus-daemon")
        .args(["--session", "--print-address=1", "--print-pid=1", "--fork"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("dbus-daemon cannot start: {error}"))?;
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let address = lines.next().and_then(Result::ok).unwrap_or_default();
    let pid = lines
        .next()
        .and_then(Result::ok)
        .and_then(|pid| pid.trim().parse().ok())
        .unwrap_or(0);
    let _ = child.wait();
    if address.is_empty() || pid == 0 {
        return Err("dbus-daemon printed no address".into());
    }
    Ok(Bus { address, pid })
}

/// What a fake service is: its bus name, its object's path, the introspection XML of
/// its one interface and that interface's name.
pub struct Service {
    pub name: &'static str,
    pub path: &'static str,
    pub xml: &'static str,
    pub interface: &'static str,
}

/// Serves `service` on the bus at `address`, on a thread of its own until the
/// process ends: `method` answers its method calls (the parameters and the
/// invocation), `property` its property reads (by name). Returns once the name is
/// owned.
pub fn serve(
    address: String,
    service: Service,
    method: impl Fn(gio::glib::Variant, gio::DBusMethodInvocation) + Send + Sync + 'static,
    property: impl Fn(&str) -> gio::glib::Variant + Send + Sync + 'static,
) {
    use gio::prelude::*;

    let (ready, is_ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let context = gio::glib::MainContext::new();
        context
            .with_thread_default(|| {
                let connection = gio::DBusConnection::for_address_sync(
                    &address,
                    gio::DBusConnectionFlags::AUTHENTICATION_CLIENT
                        | gio::DBusConnectionFlags::MESSAGE_BUS_CONNECTION,
                    None,
                    None::<&gio::Cancellable>,
                )
                .unwrap();
                let node = gio::DBusNodeInfo::for_xml(service.xml).unwrap();
                let interface = node.lookup_interface(service.interface).unwrap();
                let _registration = connection
                    .register_object(
                        service.path,
                        &interface,
                        move |_, _, _, _, _, parameters, invocation| method(parameters, invocation),
                        move |_, _, _, _, name| property(name),
                        |_, _, _, _, _, _| false,
                    )
                    .unwrap();
                connection
                    .call_sync(
                        Some("org.freedesktop.DBus"),
                        "/org/freedesktop/DBus",
                        "org.freedesktop.DBus",
                        "RequestName",
                        Some(&(service.name, 0u32).to_variant()),
                        None,
                        gio::DBusCallFlags::NONE,
                        5_000,
                        None::<&gio::Cancellable>,
                    )
                    .unwrap();
                ready.send(()).unwrap();
                loop {
                    context.iteration(true);
                }
            })
            .unwrap();
    });
    is_ready
        .recv_timeout(std::time::Duration::from_secs(10))
        .unwrap_or_else(|_| panic!("the fake {} started", service.name));
}
