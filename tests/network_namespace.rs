//! The native network trigger, for real: in a network namespace of its own (so the
//! machine's network is never touched and nothing can reach another host), the test
//! brings a veth interface with an address up, down and up again, and the offline
//! sync target retries each time connectivity comes back, and a durable kind held
//! for the network tries a job at once rather than at its next probe. Linux only; skipped with
//! the reason printed where the machine does not allow a namespace (not root, no
//! `unshare` or `ip`), except under `CI=true`, where a skip fails (`.ci/run` sets it). Bounded in time; the namespace ends with the child process.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const IN_NAMESPACE: &str = "TAURI_PLUGIN_JOBS_IN_NETNS";
/// The whole child, namespace set-up included.
const LIMIT: Duration = Duration::from_secs(90);

/// Why this machine cannot run the test, if it cannot.
fn unsupported() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return Some("network namespaces are Linux only".into());
    }
    let probe = Command::new("unshare")
        .args(["-n", "ip", "link", "show"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match probe {
        Err(error) => Some(format!("cannot run `unshare -n ip`: {error}")),
        Ok(output) if !output.status.success() => Some(format!(
            "`unshare -n` is not allowed here: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )),
        Ok(_) => None,
    }
}

#[test]
fn connectivity_coming_back_retries_offline_syncs_in_a_network_namespace() {
    if let Some(reason) = unsupported() {
        // CI must never go green without this having run on Linux (other systems,
        // Windows under Wine in CI, have no network namespaces).
        assert!(
            !cfg!(target_os = "linux") || std::env::var("CI").as_deref() != Ok("true"),
            "refusing to skip under CI=true: {reason}"
        );
        eprintln!("skipped: {reason}");
        return;
    }
    let mut child = Command::new("unshare")
        .arg("-n")
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "inside::inside_the_namespace",
            "--ignored",
            "--nocapture",
        ])
        .env(IN_NAMESPACE, "1")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let output = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
        text
    });
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the namespace test ran past {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let output = output.join().unwrap();
    print!("{output}");
    assert!(status.success(), "the test inside the namespace failed");
    assert!(
        output.contains("test result: ok. 1 passed"),
        "the test inside the namespace did not run"
    );
}

#[cfg(target_os = "linux")]
mod inside {
    use std::process::Command;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use tauri_plugin_jobs::clock::Clock;
    use tauri_plugin_jobs::queue::{ClaimRequest, Deferral, EnqueueOptions, Outcome, WaitingFor};
    use tauri_plugin_jobs::sync::testing::{FakeSource, SyncHarness};
    use tauri_plugin_jobs::sync::{SyncError, SyncPolicy, SyncResult, SyncTarget};

    /// Short, so the test is quick; the plugin uses `NETWORK_DEBOUNCE`.
    const DEBOUNCE: Duration = Duration::from_millis(200);
    const WAIT: Duration = Duration::from_secs(20);

    fn ip(args: &[&str]) {
        let status = Command::new("ip").args(args).status().unwrap();
        assert!(status.success(), "ip {}", args.join(" "));
    }

    async fn until(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + WAIT;
        while !done() {
            assert!(Instant::now() < deadline, "{what} within {WAIT:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "run by the test above, inside `unshare -n`"]
    async fn inside_the_namespace() {
        assert!(
            std::env::var_os(super::IN_NAMESPACE).is_some(),
            "only inside the namespace the test above makes"
        );
        // Nothing is up in a fresh namespace: not even loopback.
        ip(&["link", "add", "v0", "type", "veth", "peer", "name", "v1"]);
        ip(&["addr", "add", "10.77.0.1/24", "dev", "v0"]);

        let h = SyncHarness::new();
        let source = Arc::new(FakeSource::new());
        for _ in 0..2 {
            source.push(Err(SyncError::offline("no route to host")));
        }
        source.push(Ok(SyncResult::NotModified));
        let target = SyncTarget::new("demo", "me", "feed");
        h.engine
            .register(
                target.clone(),
                SyncPolicy::every(Duration::from_secs(3600)),
                source.clone(),
            )
            .unwrap();
        h.engine.sync_now(&target).await.unwrap();
        assert!(h.engine.state(&target).unwrap().unwrap().offline);
        // A durable kind held for the network: its job found the service unreachable,
        // and the kind's next probe is 15 s away on the (fake, unmoving) clock.
        let claim = ClaimRequest::new("w", ["send"]);
        h.queue
            .enqueue("send", &"a change", EnqueueOptions::new())
            .unwrap();
        let lease = h.queue.claim(&claim).unwrap().remove(0).lease;
        let offline = Deferral::Offline {
            message: "connection refused".into(),
        };
        h.queue.finish(&lease, Outcome::Deferred(offline)).unwrap();
        assert!(h.queue.claim(&claim).unwrap().is_empty(), "held");
        let next_try = || {
            h.queue
                .counts()
                .unwrap()
                .into_iter()
                .flat_map(|count| count.waiting_for)
                .find_map(|waiting| match waiting {
                    WaitingFor::Network { next_try } => Some(next_try),
                    _ => None,
                })
        };
        assert!(next_try().unwrap() > h.clock.now());
        let watch = h.engine.watch_network(DEBOUNCE).unwrap();

        // Up: an address that reaches out appears; the offline target retries.
        ip(&["link", "set", "v0", "up"]);
        until("a retry once v0 came up", || source.calls() == 2).await;
        until("the held kind's probe due at once", || {
            next_try().is_some_and(|at| at <= h.clock.now())
        })
        .await;
        assert_eq!(h.queue.claim(&claim).unwrap().len(), 1, "the probe starts");
        assert!(
            h.engine.state(&target).unwrap().unwrap().offline,
            "still offline"
        );

        // Down: no trigger. Up again: another retry, which succeeds.
        ip(&["link", "set", "v0", "down"]);
        std::thread::sleep(DEBOUNCE * 3);
        assert_eq!(source.calls(), 2, "losing the network triggers nothing");
        ip(&["link", "set", "v0", "up"]);
        until("a retry once v0 came up again", || source.calls() == 3).await;
        until("the target online again", || {
            !h.engine.state(&target).unwrap().unwrap().offline
        })
        .await;
        drop(watch);
    }
}
