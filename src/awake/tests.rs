use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::*;

/// Counts requests taken and let go; refuses while `refuse` is set.
#[derive(Default)]
struct Counting {
    taken: AtomicU32,
    open: Arc<AtomicU32>,
    refuse: AtomicBool,
    reasons: Mutex<Vec<String>>,
}

struct Open(Arc<AtomicU32>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Inhibitor for Arc<Counting> {
    fn inhibit(&self, why: &str) -> Result<Box<dyn Send>, String> {
        if self.refuse.load(Ordering::SeqCst) {
            return Err("no logind here".into());
        }
        self.taken.fetch_add(1, Ordering::SeqCst);
        self.open.fetch_add(1, Ordering::SeqCst);
        lock(&self.reasons).push(why.to_owned());
        Ok(Box::new(Open(self.open.clone())))
    }
}

const SETTLE: Duration = Duration::from_secs(10);

fn job(n: i64) -> AwakeJob {
    AwakeJob::durable("import", crate::model::JobId::from_raw(n))
}

#[test]
fn one_request_while_any_job_holds_it_and_none_after() {
    let counting = Arc::new(Counting::default());
    let awake = KeepAwake::new(counting.clone());
    assert!(awake.settle(SETTLE));
    assert_eq!(
        counting.taken.load(Ordering::SeqCst),
        0,
        "nothing before a job"
    );
    let first = awake.hold(job(1), Some("Importing mailboxes".into()));
    let second = awake.hold(AwakeJob::local("export", "local-2"), None);
    assert!(awake.settle(SETTLE));
    assert_eq!(
        counting.open.load(Ordering::SeqCst),
        1,
        "one request for both"
    );
    let status = awake.status();
    assert!(status.held);
    assert_eq!(status.jobs.len(), 2);
    let health = awake.health().reason.unwrap();
    assert_eq!(
        health,
        "keeping the machine awake for import #1, export (local-2)"
    );
    drop(first);
    assert!(awake.settle(SETTLE));
    assert_eq!(
        counting.open.load(Ordering::SeqCst),
        1,
        "the second still runs"
    );
    drop(second);
    assert!(awake.settle(SETTLE));
    assert_eq!(
        counting.open.load(Ordering::SeqCst),
        0,
        "let go with the last"
    );
    assert!(!awake.status().held);
    assert_eq!(awake.health(), Health::healthy());
    // The first job's reason, "(and 1 more)" when the second had come by the time
    // the request was taken (the thread's timing).
    assert!(lock(&counting.reasons)[0].starts_with("Importing mailboxes"));

    // A later job takes a new one; the kind's name when it gives no reason.
    let third = awake.hold(job(3), None);
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.taken.load(Ordering::SeqCst), 2);
    assert_eq!(lock(&counting.reasons)[1], "Running import");
    drop(third);
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open.load(Ordering::SeqCst), 0);
}

#[test]
fn the_system_is_told_the_first_jobs_reason_and_how_many_more() {
    let mut holders = BTreeMap::new();
    assert_eq!(why(&holders), "");
    holders.insert(0, (job(1), Some("Importing mailboxes".to_owned())));
    assert_eq!(why(&holders), "Importing mailboxes");
    holders.insert(1, (job(2), None));
    holders.insert(2, (AwakeJob::local("export", "local-3"), None));
    assert_eq!(why(&holders), "Importing mailboxes (and 2 more)");
    holders.remove(&0);
    assert_eq!(why(&holders), "Running import (and 1 more)");
}

#[test]
fn a_refused_request_is_a_warning_and_the_next_job_tries_again() {
    let counting = Arc::new(Counting::default());
    counting.refuse.store(true, Ordering::SeqCst);
    let awake = KeepAwake::new(counting.clone());
    let guard = awake.hold(job(1), None);
    assert!(awake.settle(SETTLE));
    let health = awake.health();
    assert_eq!(health.status, crate::model::HealthStatus::Warning);
    assert!(health.reason.unwrap().contains("no logind here"));
    drop(guard);
    counting.refuse.store(false, Ordering::SeqCst);
    let guard = awake.hold(job(2), None);
    assert!(awake.settle(SETTLE));
    assert!(awake.status().held);
    assert_eq!(awake.health().status, crate::model::HealthStatus::Healthy);
    drop(guard);
    assert!(awake.settle(SETTLE));
}

#[test]
fn the_last_handle_gone_lets_go_even_with_guards_alive() {
    let counting = Arc::new(Counting::default());
    let awake = KeepAwake::new(counting.clone());
    let guard = awake.hold(job(1), None);
    assert!(awake.settle(SETTLE));
    assert_eq!(counting.open.load(Ordering::SeqCst), 1);
    drop(awake);
    let deadline = Instant::now() + SETTLE;
    while counting.open.load(Ordering::SeqCst) != 0 {
        assert!(Instant::now() < deadline, "the thread let go");
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(guard);
}
