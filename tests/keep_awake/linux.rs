//! logind's `Inhibit`, for real, against a fake logind on a private D-Bus bus: the
//! request is a file descriptor the fake hands out (one end of a socket pair, whose
//! other end it keeps, so it sees the request end when every copy is closed). Skipped
//! with the reason where `dbus-daemon` cannot start; a skip fails under `CI=true`.

use std::io::{BufRead, BufReader, Read};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gio::prelude::*;
use tauri_plugin_jobs::awake::{AwakeJob, KeepAwake, SystemInhibitor};
use tauri_plugin_jobs::queue::{EnqueueOptions, JobId, Queue, QueueOptions};
use tauri_plugin_jobs::runner::{Handler, JobContext, Runner, RunnerSettings};

#[path = "../support/dbus.rs"]
mod dbus;

const CHILD: &str = "TAURI_PLUGIN_JOBS_AWAKE_CHILD";
const WAIT: Duration = Duration::from_secs(20);

const LOGIND: &str = r#"<node>
  <interface name="org.freedesktop.login1.Manager">
    <method name="Inhibit">
      <arg name="what" type="s" direction="in"/>
      <arg name="who" type="s" direction="in"/>
      <arg name="why" type="s" direction="in"/>
      <arg name="mode" type="s" direction="in"/>
      <arg name="fd" type="h" direction="out"/>
    </method>
  </interface>
</node>"#;

/// One `Inhibit` call the fake answered: its arguments, and the end of the socket
/// pair it kept.
struct Request {
    arguments: (String, String, String, String),
    kept: UnixStream,
}

impl Request {
    /// Whether every copy of the end handed out is closed.
    fn ended(&mut self) -> bool {
        let mut byte = [0u8];
        matches!(self.kept.read(&mut byte), Ok(0))
    }
}

#[derive(Clone, Default)]
struct Logind {
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Logind {
    /// How many requests are open.
    fn open(&self) -> usize {
        let mut requests = self.requests.lock().unwrap();
        requests
            .iter_mut()
            .map(Request::ended)
            .filter(|ended| !ended)
            .count()
    }

    fn calls(&self) -> Vec<(String, String, String, String)> {
        let requests = self.requests.lock().unwrap();
        requests
            .iter()
            .map(|request| request.arguments.clone())
            .collect()
    }

    fn until(&self, what: &str, open: usize) {
        let deadline = Instant::now() + WAIT;
        while self.open() != open {
            assert!(Instant::now() < deadline, "{what} within {WAIT:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Serves `org.freedesktop.login1` on `address`, on a thread of its own until
    /// the process ends.
    fn serve(address: String) -> Logind {
        let logind = Logind::default();
        let requests = logind.requests.clone();
        let service = dbus::Service {
            name: "org.freedesktop.login1",
            path: "/org/freedesktop/login1",
            xml: LOGIND,
            interface: "org.freedesktop.login1.Manager",
        };
        let inhibit = move |parameters: gio::glib::Variant,
                            invocation: gio::DBusMethodInvocation| {
            let arguments = parameters
                .get::<(String, String, String, String)>()
                .unwrap();
            let (kept, handed) = UnixStream::pair().unwrap();
            kept.set_nonblocking(true).unwrap();
            let fds = gio::UnixFDList::new();
            // The list holds a copy; ours closes with `handed`.
            let index = fds.append(handed.as_raw_fd()).unwrap();
            drop(handed);
            requests.lock().unwrap().push(Request { arguments, kept });
            invocation.return_value_with_unix_fd_list(
                Some(&(gio::glib::variant::Handle(index),).to_variant()),
                Some(&fds),
            );
        };
        dbus::serve(address, service, inhibit, |_| unreachable!("no properties"));
        logind
    }
}

fn bus_or_skip() -> Option<dbus::Bus> {
    match dbus::start_bus() {
        Ok(bus) => Some(bus),
        Err(reason) => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "refusing to skip under CI=true: {reason}"
            );
            eprintln!("skipped: {reason}");
            None
        }
    }
}

fn job(n: i64) -> AwakeJob {
    AwakeJob::durable("import", JobId::from_raw(n))
}

#[test]
fn logind_is_asked_to_block_sleep_and_the_request_ends_with_the_last_job() {
    let Some(bus) = bus_or_skip() else { return };
    let logind = Logind::serve(bus.address.clone());
    let awake = KeepAwake::new(
        SystemInhibitor::new()
            .system_bus(bus.address.clone())
            .who("Mail"),
    );
    let first = awake.hold(job(1), Some("Importing mailboxes".into()));
    assert!(awake.settle(WAIT));
    logind.until("one request", 1);
    assert_eq!(
        logind.calls(),
        [(
            "sleep".to_owned(),
            "Mail".to_owned(),
            "Importing mailboxes".to_owned(),
            "block".to_owned()
        )]
    );
    assert_eq!(awake.status().error, None);
    // A second job shares the request.
    let second = awake.hold(job(2), None);
    assert!(awake.settle(WAIT));
    assert_eq!((logind.open(), logind.calls().len()), (1, 1));
    drop(first);
    assert!(awake.settle(WAIT));
    assert_eq!(logind.open(), 1, "the second job still runs");
    drop(second);
    assert!(awake.settle(WAIT));
    logind.until("the request let go", 0);
    assert_eq!(logind.calls().len(), 1);
}

#[test]
fn no_logind_is_a_warning_and_nothing_else() {
    let Some(bus) = bus_or_skip() else { return };
    // A bus with nobody serving login1 on it.
    let awake = KeepAwake::new(SystemInhibitor::new().system_bus(bus.address.clone()));
    let guard = awake.hold(job(1), None);
    assert!(awake.settle(WAIT));
    let status = awake.status();
    assert!(!status.held);
    let reason = awake.health().reason.unwrap();
    assert!(reason.contains("cannot keep the machine awake"), "{reason}");
    // The job ends: nothing asks for the request any more, so nothing to warn of.
    drop(guard);
    assert!(awake.settle(WAIT));
    assert_eq!(awake.status().error, None);
    assert_eq!(awake.health(), tauri_plugin_jobs::model::Health::healthy());
}

/// A runner on `db` whose `import` jobs wait forever and keep the machine awake
/// through logind on `bus`; with its `KeepAwake`.
fn runner_on(db: &std::path::Path, bus: &str) -> (Runner, KeepAwake) {
    let queue = Queue::open(db, QueueOptions::new()).unwrap();
    let awake = KeepAwake::new(SystemInhibitor::new().system_bus(bus));
    let forever = Handler::new("import", |_: u32, _ctx: JobContext| async move {
        std::future::pending::<()>().await;
        Ok(())
    })
    .keep_awake("Importing");
    let settings = RunnerSettings::default().workers(1).awake(awake.clone());
    (Runner::new(queue, vec![forever], settings).unwrap(), awake)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_process_lets_go_and_each_process_takes_its_own() {
    let Some(bus) = bus_or_skip() else { return };
    let logind = Logind::serve(bus.address.clone());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("raw.db");
    // This process runs one import job of two on the file: its own request.
    let (runner, awake) = runner_on(&db, &bus.address);
    for n in 0..2u32 {
        runner
            .queue()
            .enqueue("import", &n, EnqueueOptions::new())
            .unwrap();
    }
    assert_eq!(runner.dispatch().unwrap(), 1);
    assert!(awake.settle(WAIT));
    logind.until("this process's request", 1);

    // A second process on the same raw.db runs the other, takes its own request,
    // and is killed with -9 while it runs.
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "linux::child_runs_an_import",
            "--ignored",
            "--nocapture",
        ])
        .env(CHILD, format!("{}\n{}", bus.address, db.display()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (held, is_held) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line == "held" {
                let _ = held.send(());
            }
        }
    });
    let waited = is_held.recv_timeout(WAIT);
    if waited.is_err() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the child did not take its request within {WAIT:?}");
    }
    logind.until("two requests, one per process", 2);
    child.kill().unwrap();
    child.wait().unwrap();
    logind.until("the killed process's request let go", 1);
    runner.stop(Duration::from_millis(10)).await.unwrap();
    assert!(awake.settle(WAIT));
    logind.until("none left once this runner stopped", 0);
    assert_eq!(logind.calls().len(), 2);
}

/// Run by the test above: runs an import job on its file, says so once the request
/// is held, and waits to be killed (60 s at most).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by a_killed_process_lets_go_and_each_process_takes_its_own"]
async fn child_runs_an_import() {
    let given = std::env::var(CHILD).expect("run by the test above");
    let (bus, db) = given.split_once('\n').unwrap();
    let (runner, awake) = runner_on(std::path::Path::new(db), bus);
    assert_eq!(runner.dispatch().unwrap(), 1, "the second job");
    assert!(awake.settle(WAIT));
    assert!(awake.status().held, "{:?}", awake.status());
    println!("held");
    tokio::time::sleep(Duration::from_secs(60)).await;
}
