//! Constraints: a job (or every job of a kind) waits for a charger, a battery level, an
//! unmetered network or an idle user, on the fake clock and fake conditions.

use super::*;
use tauri_plugin_jobs::conditions::{FakeConditions, WaitingFor};
use tauri_plugin_jobs::queue::{ClaimedJob, Constraints};
use tauri_plugin_jobs::random::FixedRandom;

const MIN: Duration = Duration::from_secs(60);

/// A queue on the harness's file whose conditions come from `conditions`.
fn with_conditions(h: &Harness, conditions: &FakeConditions) -> Queue {
    Queue::open(
        h.dir.path().join("raw.db"),
        QueueOptions::new()
            .clock(h.clock.clone())
            .random(FixedRandom(0.0))
            .conditions(conditions.clone()),
    )
    .unwrap()
}

fn claim_all(queue: &Queue, kinds: &[&str]) -> Vec<ClaimedJob> {
    queue
        .claim(
            &ClaimRequest::new("w", kinds.iter().copied())
                .lease(30 * SEC)
                .max_jobs(100),
        )
        .unwrap()
}

#[test]
fn a_kind_that_needs_a_charger_waits_on_battery_in_every_handle_and_starts_when_plugged_in() {
    let h = Harness::new();
    let conditions = FakeConditions::new();
    conditions.set_on_ac_power(Some(false));
    let (a, b) = (
        with_conditions(&h, &conditions),
        with_conditions(&h, &conditions),
    );
    a.set_constraints("reembed", Some(Constraints::none().ac_power()))
        .unwrap();
    assert_eq!(
        b.constraints("reembed").unwrap(),
        Constraints::none().ac_power()
    );
    let id = a.enqueue("reembed", &1, EnqueueOptions::new()).unwrap().id;
    a.enqueue("thumb", &1, EnqueueOptions::new()).unwrap();

    // On battery: the other kind runs, this one waits, and says why.
    let claimed = claim_all(&b, &["reembed", "thumb"]);
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].job.kind, "thumb");
    assert!(claim_all(&a, &["reembed"]).is_empty());
    assert_eq!(
        a.get(id).unwrap().unwrap().waiting_for,
        [WaitingFor::AcPower]
    );
    let count = a
        .counts()
        .unwrap()
        .into_iter()
        .find(|c| c.kind == "reembed" && c.status == JobStatus::Queued)
        .unwrap();
    assert_eq!(count.waiting_for, [WaitingFor::AcPower]);
    // Nothing to wake for while it waits: no timer, only a change of power.
    let request = ClaimRequest::new("w", ["reembed"]);
    assert_eq!(a.next_claimable_at(&request).unwrap(), None);

    // Plugged in: a change wakes the handle, and the job starts.
    let wake_ups = a.wake_ups();
    conditions.set_on_ac_power(Some(true));
    assert!(wake_ups.has_changed().unwrap());
    assert!(a.get(id).unwrap().unwrap().waiting_for.is_empty());
    assert_eq!(claim_all(&b, &["reembed"])[0].job.id, id);
}

#[test]
fn a_job_of_its_own_waits_for_an_unmetered_network_while_others_of_its_kind_run() {
    let h = Harness::new();
    let conditions = FakeConditions::new();
    conditions.set_metered_network(Some(true));
    let queue = with_conditions(&h, &conditions);
    let needs = Constraints::none().unmetered_network();
    let big = queue
        .enqueue(
            "download",
            &"model.bin",
            EnqueueOptions::new()
                .constraints(needs)
                .priority(Priority::USER),
        )
        .unwrap()
        .id;
    let small = queue
        .enqueue("download", &"icon.png", EnqueueOptions::new())
        .unwrap()
        .id;
    let job = queue.get(big).unwrap().unwrap();
    assert_eq!(job.constraints, needs);
    assert_eq!(job.waiting_for, [WaitingFor::UnmeteredNetwork]);
    // The higher priority job waits; the one behind it is not held up by it.
    let claimed = claim_all(&queue, &["download"]);
    assert_eq!(
        claimed.iter().map(|c| c.job.id).collect::<Vec<_>>(),
        [small]
    );
    assert_eq!(
        queue
            .next_claimable_at(&ClaimRequest::new("w", ["download"]))
            .unwrap(),
        None
    );
    conditions.set_metered_network(Some(false));
    assert_eq!(claim_all(&queue, &["download"])[0].job.id, big);
}

#[test]
fn a_battery_level_counts_only_on_battery_and_what_cannot_be_told_counts_as_met() {
    let h = Harness::new();
    let conditions = FakeConditions::new();
    let queue = with_conditions(&h, &conditions);
    let needs = Constraints::none().battery_at_least(30);
    let enqueue = || {
        queue
            .enqueue("sync-photos", &1, EnqueueOptions::new().constraints(needs))
            .unwrap()
            .id
    };
    // Nothing known: met.
    enqueue();
    assert_eq!(claim_all(&queue, &["sync-photos"]).len(), 1);
    conditions.set_on_ac_power(Some(false));
    conditions.set_battery_percent(Some(20));
    let id = enqueue();
    assert!(claim_all(&queue, &["sync-photos"]).is_empty());
    assert_eq!(
        queue.get(id).unwrap().unwrap().waiting_for,
        [WaitingFor::Battery { at_least: 30 }]
    );
    // Charging at 5 %: the battery's level does not matter on a charger.
    conditions.set_on_ac_power(Some(true));
    conditions.set_battery_percent(Some(5));
    assert_eq!(claim_all(&queue, &["sync-photos"]).len(), 1);
    enqueue();
    conditions.set_on_ac_power(Some(false));
    conditions.set_battery_percent(Some(30));
    assert_eq!(claim_all(&queue, &["sync-photos"]).len(), 1);

    // A queue opened without a source knows nothing: every constraint is met.
    let blind = h.second_queue();
    blind
        .enqueue(
            "sync-photos",
            &1,
            EnqueueOptions::new().constraints(Constraints::none().ac_power().unmetered_network()),
        )
        .unwrap();
    assert_eq!(claim_all(&blind, &["sync-photos"]).len(), 1);
}

#[test]
fn a_job_that_needs_the_user_idle_starts_once_the_user_has_been_away_long_enough() {
    let h = Harness::new();
    let conditions = FakeConditions::new();
    let queue = with_conditions(&h, &conditions);
    conditions.set_user_idle_since(Some(h.clock_now()));
    let needs = Constraints::none().user_idle_for(5 * MIN);
    let id = queue
        .enqueue("reindex", &1, EnqueueOptions::new().constraints(needs))
        .unwrap()
        .id;
    assert!(claim_all(&queue, &["reindex"]).is_empty());
    assert_eq!(
        queue.get(id).unwrap().unwrap().waiting_for,
        [WaitingFor::UserIdle { secs: 300 }]
    );
    // Idle time grows on its own: the claimer sleeps until it would be enough.
    let request = ClaimRequest::new("w", ["reindex"]);
    assert_eq!(
        queue.next_claimable_at(&request).unwrap(),
        Some(h.clock_now().saturating_add(5 * MIN))
    );
    h.advance(2 * MIN);
    assert_eq!(
        queue.next_claimable_at(&request).unwrap(),
        Some(h.clock_now().saturating_add(3 * MIN))
    );
    // The user comes back at the keyboard: the wait starts again.
    conditions.set_user_idle_since(Some(h.clock_now()));
    h.advance(4 * MIN);
    assert!(claim_all(&queue, &["reindex"]).is_empty());
    h.advance(MIN);
    assert_eq!(claim_all(&queue, &["reindex"])[0].job.id, id);
}

#[test]
fn a_kind_that_needs_the_user_idle_is_woken_for_when_it_would_be_enough() {
    let h = Harness::new();
    let conditions = FakeConditions::new();
    let queue = with_conditions(&h, &conditions);
    queue
        .set_constraints("backup", Some(Constraints::none().user_idle_for(MIN)))
        .unwrap();
    conditions.set_user_idle_since(Some(h.clock_now()));
    queue.enqueue("backup", &1, EnqueueOptions::new()).unwrap();
    let request = ClaimRequest::new("w", ["backup"]);
    assert_eq!(
        queue.next_claimable_at(&request).unwrap(),
        Some(h.clock_now().saturating_add(MIN))
    );
    h.advance(MIN);
    assert_eq!(claim_all(&queue, &["backup"]).len(), 1);
    // Cleared: nothing asked any more.
    queue.set_constraints("backup", None).unwrap();
    assert!(queue.constraints("backup").unwrap().is_none());
}

#[test]
fn a_replace_takes_the_new_constraints_and_a_follow_up_keeps_its_own() {
    use tauri_plugin_jobs::queue::OnDuplicate;
    let h = Harness::new();
    let conditions = FakeConditions::new();
    conditions.set_on_ac_power(Some(false));
    let queue = with_conditions(&h, &conditions);
    let keyed = |needs: Constraints| {
        EnqueueOptions::new()
            .dedupe_key("k")
            .on_duplicate(OnDuplicate::Replace)
            .constraints(needs)
    };
    let id = queue
        .enqueue("embed", &1, keyed(Constraints::none()))
        .unwrap()
        .id;
    queue
        .enqueue("embed", &2, keyed(Constraints::none().ac_power()))
        .unwrap();
    assert_eq!(
        queue.get(id).unwrap().unwrap().constraints,
        Constraints::none().ac_power()
    );
    assert!(claim_all(&queue, &["embed"]).is_empty());
    conditions.set_on_ac_power(Some(true));
    let running = claim_all(&queue, &["embed"]).pop().unwrap();
    // While it runs, a replace becomes a follow-up that needs a charger too.
    queue
        .enqueue("embed", &3, keyed(Constraints::none().ac_power()))
        .unwrap();
    conditions.set_on_ac_power(Some(false));
    queue.complete(&running.lease, None).unwrap();
    let follow_up = queue
        .list(&JobFilter::default().status(JobStatus::Queued))
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(follow_up.constraints, Constraints::none().ac_power());
    assert_eq!(follow_up.waiting_for, [WaitingFor::AcPower]);
}

#[test]
fn jobs_whose_constraints_are_met_keep_their_place_in_claim_order() {
    let h = Harness::new();
    let conditions = FakeConditions::new();
    conditions.set_on_ac_power(Some(true));
    let queue = with_conditions(&h, &conditions);
    let on = |needs: Constraints, priority: Priority| {
        queue
            .enqueue(
                "embed",
                &1,
                EnqueueOptions::new().constraints(needs).priority(priority),
            )
            .unwrap()
            .id
    };
    let low = on(Constraints::none(), Priority(10));
    h.advance(SEC);
    let high = on(Constraints::none().ac_power(), Priority(90));
    h.advance(SEC);
    let middle = on(
        Constraints::none().ac_power().unmetered_network(),
        Priority(50),
    );
    h.advance(SEC);
    let also_middle = on(Constraints::none(), Priority(50));
    let order: Vec<JobId> = (0..4)
        .map(|_| {
            queue
                .claim(&ClaimRequest::new("w", ["embed"]).lease(30 * SEC))
                .unwrap()
                .pop()
                .unwrap()
                .job
                .id
        })
        .collect();
    assert_eq!(order, [high, middle, also_middle, low]);
    // With none left, claims read the unconstrained lane alone; a new constrained job
    // (from another handle) is seen again at once.
    assert!(claim_all(&queue, &["embed"]).is_empty());
    let other = with_conditions(&h, &conditions);
    let plain = other
        .enqueue("embed", &1, EnqueueOptions::new())
        .unwrap()
        .id;
    let urgent = other
        .enqueue(
            "embed",
            &1,
            EnqueueOptions::new()
                .constraints(Constraints::none().ac_power())
                .priority(Priority(90)),
        )
        .unwrap()
        .id;
    let ids: Vec<JobId> = claim_all(&queue, &["embed"])
        .iter()
        .map(|c| c.job.id)
        .collect();
    assert_eq!(ids, [urgent, plain]);
}

#[test]
fn a_job_with_constraints_that_comes_back_to_the_queue_is_still_claimed() {
    use tauri_plugin_jobs::queue::JobFailure;
    let h = Harness::new();
    let conditions = FakeConditions::new();
    conditions.set_on_ac_power(Some(true));
    let queue = with_conditions(&h, &conditions);
    let charger = EnqueueOptions::new().constraints(Constraints::none().ac_power());
    let id = queue.enqueue("embed", &1, charger.clone()).unwrap().id;
    let running = claim_all(&queue, &["embed"]).pop().unwrap();
    // Nothing queued: a claim finds no constrained job waiting, but one runs.
    assert!(claim_all(&queue, &["embed"]).is_empty());
    queue
        .fail(&running.lease, JobFailure::retryable("flaky"))
        .unwrap();
    h.advance(3600 * SEC);
    let again = claim_all(&queue, &["embed"])
        .pop()
        .expect("the retry is claimed");
    assert_eq!(again.job.id, id);

    // Failed for good, then nothing of the kind is left; an operator's retry brings
    // it back, and it is claimed.
    queue
        .fail(&again.lease, JobFailure::permanent("bad"))
        .unwrap();
    assert!(claim_all(&queue, &["embed"]).is_empty());
    queue.retry_now(id).unwrap();
    assert_eq!(claim_all(&queue, &["embed"]).pop().unwrap().job.id, id);
}

/// A machine that cannot tell its power (a desktop without a battery, no system bus)
/// but can tell its network.
#[derive(Debug)]
struct NoPowerReading;

impl tauri_plugin_jobs::conditions::ConditionSource for NoPowerReading {
    fn conditions(&self, _now: Timestamp) -> tauri_plugin_jobs::conditions::Conditions {
        tauri_plugin_jobs::conditions::Conditions::unknown().metered_network(Some(false))
    }

    fn health(&self) -> tauri_plugin_jobs::health::Health {
        tauri_plugin_jobs::health::Health::warning("cannot tell the power")
    }
}

#[test]
fn what_the_machine_cannot_tell_is_a_warning_only_while_a_waiting_job_needs_it() {
    use tauri_plugin_jobs::health::HealthStatus;
    let h = Harness::new();
    let queue = Queue::open(
        h.dir.path().join("raw.db"),
        QueueOptions::new()
            .clock(h.clock.clone())
            .conditions(NoPowerReading),
    )
    .unwrap();
    let status = |queue: &Queue| queue.conditions_health().status;
    assert_eq!(status(&queue), HealthStatus::Healthy, "nothing waits");
    queue.enqueue("plain", &1, EnqueueOptions::new()).unwrap();
    let network = EnqueueOptions::new().constraints(Constraints::none().unmetered_network());
    queue.enqueue("upload", &1, network).unwrap();
    assert_eq!(
        status(&queue),
        HealthStatus::Healthy,
        "what waits needs only what the machine can tell"
    );
    let charger = EnqueueOptions::new().constraints(Constraints::none().ac_power());
    let id = queue.enqueue("backup", &1, charger).unwrap().id;
    let health = queue.conditions_health();
    assert_eq!(
        health.status,
        HealthStatus::Warning,
        "a job waits on the power"
    );
    assert_eq!(health.reason.as_deref(), Some("cannot tell the power"));
    queue.cancel(id).unwrap();
    assert_eq!(status(&queue), HealthStatus::Healthy, "it no longer waits");

    // A kind's own constraint counts for its queued jobs.
    queue
        .set_constraints("index", Some(Constraints::none().battery_at_least(50)))
        .unwrap();
    assert_eq!(status(&queue), HealthStatus::Healthy, "no job of it waits");
    queue.enqueue("index", &1, EnqueueOptions::new()).unwrap();
    assert_eq!(status(&queue), HealthStatus::Warning);
}
