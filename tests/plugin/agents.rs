//! External agents over IPC: leases with the same fencing as the runner's, the agent actor, and the agents set required.

use super::*;

#[test]
fn external_agents_lease_jobs_through_ipc_with_the_same_fencing() {
    let app = app(ALL);
    let id = app
        .ui
        .invoke("enqueue", json!({"kind": "remote", "payload": {"n": 1}}))
        .unwrap()["id"]
        .clone();
    let claimed = app.ui.invoke("agent_claim",
        json!({"request": {"agent": "sidecar", "kinds": ["remote"], "leaseMs": 60000, "maxJobs": 4}}),
    )
    .unwrap();
    let claimed = claimed.as_array().unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0]["job"]["id"], id);
    let lease = claimed[0]["lease"].clone();
    assert_eq!(lease["worker"], json!("agent:sidecar"));
    let beat = app
        .ui
        .invoke("agent_heartbeat", json!({"lease": lease}))
        .unwrap();
    assert_eq!(beat["cancelRequested"], json!(false));
    app.ui
        .invoke(
            "agent_heartbeat",
            json!({"lease": lease, "progress": {"done": 2, "total": 8}}),
        )
        .unwrap();
    let job = app.ui.invoke("get_job", json!({"id": id})).unwrap();
    assert_eq!(job["progress"], json!({"done": 2, "total": 8}));

    // A lease that is not an agent's (say, the runner's) is refused outright.
    let mut forged = lease.clone();
    forged["worker"] = json!("runner-1-2");
    let refused = app
        .ui
        .invoke("agent_complete", json!({"lease": forged, "result": 1}))
        .unwrap_err();
    assert_eq!(refused["code"], json!("invalidArgument"));
    // A stale attempt is fenced out.
    let mut stale = lease.clone();
    stale["attempt"] = json!(7);
    let fenced = app
        .ui
        .invoke("agent_complete", json!({"lease": stale, "result": 1}))
        .unwrap_err();
    assert_eq!(fenced["code"], json!("lostLease"));

    let done = app
        .ui
        .invoke(
            "agent_complete",
            json!({"lease": lease, "result": {"ok": true}}),
        )
        .unwrap();
    assert_eq!(done, json!("succeeded"));
    let job = app.ui.invoke("get_job", json!({"id": id})).unwrap();
    assert_eq!(job["status"], json!("succeeded"));
    assert_eq!(job["result"], json!({"ok": true}));

    app.ui
        .invoke("enqueue", json!({"kind": "remote", "payload": 2}))
        .unwrap();
    let again = app
        .ui
        .invoke(
            "agent_claim",
            json!({"request": {"agent": "sidecar", "kinds": ["remote"]}}),
        )
        .unwrap();
    let failed = app
        .ui
        .invoke(
            "agent_fail",
            json!({"lease": again[0]["lease"], "error": "no GPU", "permanent": true}),
        )
        .unwrap();
    assert_eq!(failed, json!("failed"));

    // An agent defers without failing: a snooze of its job, then its kind throttled.
    let id = app
        .ui
        .invoke("enqueue", json!({"kind": "remote", "payload": 3}))
        .unwrap()["id"]
        .clone();
    let claim = || {
        app.ui
            .invoke(
                "agent_claim",
                json!({"request": {"agent": "sidecar", "kinds": ["remote"]}}),
            )
            .unwrap()
    };
    let first = claim();
    let snoozed = app
        .ui
        .invoke(
            "agent_defer",
            json!({"lease": first[0]["lease"],
                   "deferral": {"type": "retryAfter", "afterMs": 60_000, "reason": "HTTP 429"}}),
        )
        .unwrap();
    assert_eq!(snoozed, json!("deferred"));
    let job = app.ui.invoke("get_job", json!({"id": id})).unwrap();
    assert_eq!(
        (&job["status"], &job["attempts"]),
        (&json!("queued"), &json!(0))
    );
    assert_eq!(job["snoozedUntil"], job["runAt"]);
    assert_eq!(claim(), json!([]), "not before its time");
    // What is not a duration is refused, naming it; a week is clamped to a day.
    let other = app
        .ui
        .invoke("enqueue", json!({"kind": "remote", "payload": 4}))
        .unwrap()["id"]
        .clone();
    let again = claim();
    assert_eq!(again[0]["job"]["id"], other);
    let refused = app
        .ui
        .invoke(
            "agent_defer",
            json!({"lease": again[0]["lease"],
                   "deferral": {"type": "throttleKind", "afterMs": -1, "reason": "x"}}),
        )
        .unwrap_err();
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("deferral.afterMs"),
        "{refused}"
    );
    let throttled = app
        .ui
        .invoke(
            "agent_defer",
            json!({"lease": again[0]["lease"],
                   "deferral": {"type": "throttleKind", "afterMs": 7.0 * 86_400_000.0, "reason": "quota"}}),
        )
        .unwrap();
    assert_eq!(throttled, json!("deferred"));
    let counts = app.ui.invoke("job_counts", json!({})).unwrap();
    let queued = counts
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "remote" && c["status"] == "queued")
        .unwrap();
    assert_eq!(queued["waitingFor"][0]["condition"], json!("service"));
    assert_eq!(queued["heldBecause"], json!("quota"));
    let job = app.ui.invoke("get_job", json!({"id": other})).unwrap();
    assert_eq!(job["snoozedUntil"], json!(null), "the kind's hold says why");
    let day = job["runAt"].as_i64().unwrap() - job["updatedAt"].as_i64().unwrap();
    assert_eq!(day, 86_400_000, "clamped to a day");
}

#[test]
fn agent_commands_are_refused_without_the_agents_set() {
    let defaults: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|c| !c.starts_with("agent_"))
        .collect();
    let app = app(&defaults);
    let refused = app
        .ui
        .invoke(
            "agent_claim",
            json!({"request": {"agent": "x", "kinds": ["remote"]}}),
        )
        .unwrap_err();
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );
}

#[test]
fn agents_enqueue_over_ipc_as_the_agent_actor() {
    let app = app(ALL);
    let enqueued = app
        .ui
        .invoke(
            "agent_enqueue",
            json!({"kind": "remote", "payload": 1, "options": {"priority": 10}}),
        )
        .unwrap();
    let job = app
        .ui
        .invoke("get_job", json!({"id": enqueued["id"]}))
        .unwrap();
    assert_eq!(job["actor"], json!("agent"));
    assert_eq!(job["priority"], json!(10));
    let defaults: Vec<&str> = ALL
        .iter()
        .copied()
        .filter(|c| !c.starts_with("agent_"))
        .collect();
    let app = self::app(&defaults);
    let refused = app
        .ui
        .invoke("agent_enqueue", json!({"kind": "remote", "payload": 1}))
        .unwrap_err();
    assert!(
        refused.as_str().unwrap().contains("not allowed"),
        "{refused}"
    );
}
