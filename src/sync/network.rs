#![cfg_attr(target_os = "android", allow(dead_code, unused_imports))]
//! Network changes seen natively: when connectivity comes back, every target gets
//! [`sync_if_due`](SyncEngine::sync_if_due) with [`Trigger::NetworkBack`], so a tray
//! app with no window open retries its offline syncs too.
//!
//! The `netwatcher` crate reports interface and address changes (netlink on Linux,
//! the routing socket on macOS, `NotifyIpInterfaceChange` on Windows) with no polling
//! and no async runtime of its own. Changes come in bursts (a link, then an IPv6
//! address, then DHCP's IPv4 one), so they are debounced: after a burst has been quiet
//! for the debounce time, the addresses are compared with the last ones. Connectivity
//! "comes back" when an address that can reach past this machine (not loopback, not
//! link-local) appears that was not there: a network joined, a cable plugged in, a VPN
//! up. Losing addresses triggers nothing; the next sync attempt finds out.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::runtime::Handle;

use super::{SyncEngine, Trigger};
use crate::error::{Error, Result};

/// How long a burst of network changes must be quiet before it is judged.
pub const NETWORK_DEBOUNCE: Duration = Duration::from_secs(2);

/// Whether `ip` can reach beyond this machine: not loopback, unspecified or link-local.
fn reaches_out(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => !(v4.is_loopback() || v4.is_unspecified() || v4.is_link_local()),
        IpAddr::V6(v6) => {
            let link_local = v6.segments()[0] & 0xffc0 == 0xfe80;
            !(v6.is_loopback() || v6.is_unspecified() || link_local)
        }
    }
}

/// The addresses that can reach out, and whether a new one is connectivity back.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Connectivity {
    addresses: BTreeSet<IpAddr>,
}

impl Connectivity {
    /// Starts from the addresses the machine has now.
    pub(crate) fn new(addresses: impl IntoIterator<Item = IpAddr>) -> Self {
        Connectivity {
            addresses: addresses.into_iter().filter(reaches_out).collect(),
        }
    }

    /// Takes the addresses after a change; returns whether one appeared that can
    /// reach out and was not there before.
    pub(crate) fn observe(&mut self, addresses: impl IntoIterator<Item = IpAddr>) -> bool {
        let now = Connectivity::new(addresses);
        let gained = now.addresses.iter().any(|ip| !self.addresses.contains(ip));
        *self = now;
        gained
    }
}

/// Every address of every interface that is up.
#[cfg(not(target_os = "android"))]
fn addresses(update: &netwatcher::Update) -> Vec<IpAddr> {
    update
        .interfaces
        .values()
        .flat_map(|interface| interface.ips.iter().map(|record| record.ip))
        .collect()
}

#[cfg(not(target_os = "android"))]
type WatchHandle = netwatcher::WatchHandle;
/// No native watch on Android (see `watch_network`).
#[cfg(target_os = "android")]
struct WatchHandle;

enum Message {
    // Not sent on Android, where nothing watches.
    #[cfg_attr(target_os = "android", allow(dead_code))]
    Changed(Vec<IpAddr>),
    Stop,
}

/// A running watch on the network; dropping it stops it.
#[must_use = "the watch stops when dropped"]
pub struct NetworkWatch {
    // Dropped first: no callback runs once it is gone.
    handle: Option<WatchHandle>,
    messages: mpsc::Sender<Message>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for NetworkWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkWatch").finish_non_exhaustive()
    }
}

impl Drop for NetworkWatch {
    fn drop(&mut self) {
        // The watch (where there is one) goes first: no callback runs once it is gone.
        {
            let _watch = self.handle.take();
        }
        let _ = self.messages.send(Message::Stop);
        if let Some(thread) = self.thread.take() {
            // It ends at once on Stop; a sync it started runs on in the runtime.
            let _ = thread.join();
        }
    }
}

impl SyncEngine {
    /// Watches the machine's network interfaces from now on: when connectivity comes
    /// back (see the module's notes), after `debounce` of quiet, every registered
    /// target gets [`sync_if_due`](SyncEngine::sync_if_due) with
    /// [`Trigger::NetworkBack`] on the current tokio runtime. The plugin starts one
    /// with [`NETWORK_DEBOUNCE`]; the webview's `online` hint stays as a fallback.
    ///
    /// # Errors
    ///
    /// [`Error::NetworkWatch`] when the system refuses to report interface changes,
    /// [`Error::InvalidArgument`] outside a tokio runtime.
    pub fn watch_network(&self, debounce: Duration) -> Result<NetworkWatch> {
        #[cfg(target_os = "android")]
        {
            let _ = debounce;
            Err(Error::NetworkWatch(
                "no native network watch on Android (its backend builds against the Android \
                 SDK): offline targets retry on their offline_retry, on focus and on the \
                 webview's online hint"
                    .into(),
            ))
        }
        #[cfg(not(target_os = "android"))]
        self.watch_interfaces(debounce)
    }

    #[cfg(not(target_os = "android"))]
    fn watch_interfaces(&self, debounce: Duration) -> Result<NetworkWatch> {
        let runtime = Handle::try_current().map_err(|_| {
            Error::invalid_argument("runtime", "watch_network needs a tokio runtime")
        })?;
        let (messages, inbox) = mpsc::channel();
        let sender = messages.clone();
        // The first call, with the interfaces as they are, comes before this returns.
        let handle = netwatcher::watch_interfaces_with_callback(move |update| {
            let _ = sender.send(Message::Changed(addresses(&update)));
        })
        .map_err(|error| Error::NetworkWatch(error.to_string()))?;
        let engine = self.clone();
        let thread = std::thread::Builder::new()
            .name("jobs-network".into())
            .spawn(move || watch_loop(&engine, &runtime, &inbox, debounce))
            .map_err(|error| Error::NetworkWatch(error.to_string()))?;
        Ok(NetworkWatch {
            handle: Some(handle),
            messages,
            thread: Some(thread),
        })
    }
}

/// Takes the first snapshot as the starting point, then judges each quiet burst.
fn watch_loop(
    engine: &SyncEngine,
    runtime: &Handle,
    inbox: &mpsc::Receiver<Message>,
    debounce: Duration,
) {
    let mut connectivity = match inbox.recv() {
        Ok(Message::Changed(addresses)) => Connectivity::new(addresses),
        _ => return,
    };
    loop {
        let mut latest = match inbox.recv() {
            Ok(Message::Changed(addresses)) => addresses,
            _ => return,
        };
        loop {
            match inbox.recv_timeout(debounce) {
                Ok(Message::Changed(addresses)) => latest = addresses,
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Ok(Message::Stop) | Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
        if connectivity.observe(latest) {
            tracing::debug!("network connectivity came back; syncing what is due");
            // Durable kinds that wait for the network try one job each at once.
            if let Err(error) = engine.network_back() {
                tracing::warn!(%error, "could not wake the kinds waiting for the network");
            }
            let engine = engine.clone();
            crate::tasks::spawn_on(runtime, async move {
                engine.trigger_all(Trigger::NetworkBack).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ips(list: &[&str]) -> Vec<IpAddr> {
        list.iter().map(|ip| ip.parse().unwrap()).collect()
    }

    #[test]
    fn a_new_address_that_reaches_out_is_connectivity_back() {
        let mut connectivity = Connectivity::new(ips(&["127.0.0.1", "::1"]));
        assert!(!connectivity.observe(ips(&["127.0.0.1", "fe80::1", "169.254.3.4"])));
        assert!(connectivity.observe(ips(&["127.0.0.1", "192.168.1.20"])));
        assert!(!connectivity.observe(ips(&["192.168.1.20"])), "nothing new");
        assert!(
            !connectivity.observe(ips(&[])),
            "losing addresses is no trigger"
        );
        assert!(connectivity.observe(ips(&["192.168.1.20"])), "back again");
        assert!(
            connectivity.observe(ips(&["192.168.1.20", "2001:db8::7"])),
            "another network"
        );
        assert!(
            connectivity.observe(ips(&["10.0.0.5"])),
            "switched networks"
        );
    }
}
