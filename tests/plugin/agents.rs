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
