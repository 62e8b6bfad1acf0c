//! Which process holds a lease, and whether it is gone.
//!
//! Every claim writes the claiming process's mark beside the lease
//! (`jobs.lease_process`, migration 15): the system, where the process runs (its
//! place), its pid and its start time. A claimer that finds a running job whose
//! holder ran in the same place and whose pid is no longer there (or is a zombie, or
//! is another process now: its start time differs, so a reused pid is never taken for
//! the holder) reclaims the job at once instead of waiting for its lease to run out:
//! what a restart after a `kill -9` or a crash needs, so that a capped kind's slots
//! come back within a sweep.
//!
//! | system | place | start time |
//! | --- | --- | --- |
//! | Linux (`linux.rs`) | the boot (`boot_id`), the pid and time namespaces, the user | `/proc/<pid>/stat`, clock ticks after boot |
//! | Windows (`windows.rs`) | the computer's name | the process's creation time (`GetProcessTimes`) |
//! | macOS (`macos.rs`) | the boot time (`kern.boottime`), the user | `proc_pidinfo`'s start time |
//!
//! Compared with the lease, which is the rule for every holder, this is only a
//! shortcut for the one case that can be told for sure. A holder that is alive but
//! frozen (SIGSTOP, a suspended process, a debugger), one of another place (a
//! container or a sandbox with namespaces of its own, another user or boot, another
//! computer on a shared folder), and every holder on a system where the mark cannot
//! be read keeps its lease until it runs out, as before.

use std::sync::LazyLock;

// Android has Linux's `/proc`: the same marks.
#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux;
#[cfg(any(target_os = "linux", target_os = "android"))]
use linux as system;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as system;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as system;

/// Where no mark can be read (iOS: one app a process, no other to tell apart): no
/// process is ever taken for gone.
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_os = "macos",
    windows
)))]
mod system {
    pub(super) const NAME: &str = "none";
    /// A place of no parts: no mark is ever made.
    pub(super) const PLACE_PARTS: usize = 0;

    pub(super) fn this() -> Option<super::Mark> {
        None
    }

    pub(super) fn gone(_holder: &super::Mark) -> bool {
        false
    }
}

/// This process's mark, when it can be read.
static THIS: LazyLock<Option<Mark>> = LazyLock::new(system::this);
/// The same as stored.
static THIS_TEXT: LazyLock<Option<String>> = LazyLock::new(|| THIS.as_ref().map(Mark::to_text));

/// A process as a lease names it: where it ran (its place, in the system's own
/// words: no part holds a `/`), which process it was (pid, start time).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mark {
    place: Vec<String>,
    pid: u32,
    started: u64,
}

impl Mark {
    /// The form stored in `jobs.lease_process`: `<system>/<place...>/<pid>/<start>`,
    /// such as `linux/<boot>/<pid ns>/<time ns>/<uid>/<pid>/<start>`.
    fn to_text(&self) -> String {
        let mut text = String::from(system::NAME);
        for part in &self.place {
            text.push('/');
            text.push_str(part);
        }
        format!("{text}/{}/{}", self.pid, self.started)
    }

    /// A mark this system wrote with a place of `parts` parts; `None` for anything
    /// else (another system's, a damaged one).
    fn parse(text: &str) -> Option<Mark> {
        let mut parts: Vec<&str> = text
            .strip_prefix(system::NAME)?
            .strip_prefix('/')?
            .split('/')
            .collect();
        if parts.len() != system::PLACE_PARTS + 2 || parts.iter().any(|part| part.is_empty()) {
            return None;
        }
        let started = parts.pop()?.parse().ok()?;
        let pid = parts.pop()?.parse().ok()?;
        Some(Mark {
            place: parts.into_iter().map(str::to_owned).collect(),
            pid,
            started,
        })
    }
}

/// This process's mark as a claim stores it; `None` where it cannot be read (the
/// leases this process takes then only end by running out).
pub(crate) fn this_process() -> Option<&'static str> {
    THIS_TEXT.as_deref()
}

/// Whether the process a lease names is surely gone: it ran in this place and no live
/// process has its pid and start time. `false` whenever that cannot be told (another
/// system or place; a mark not of ours; a process table that cannot be read), and for
/// this process itself. A holder with this process's pid but another start time was
/// an earlier process, and is gone.
pub(crate) fn is_gone(mark: &str) -> bool {
    let (Some(this), Some(holder)) = (THIS.as_ref(), Mark::parse(mark)) else {
        return false;
    };
    if this.place != holder.place {
        return false;
    }
    if holder.pid == this.pid {
        return holder.started != this.started;
    }
    system::gone(&holder)
}

/// The pid of the process `mark` names, when it runs now in this place and is not
/// this process: another instance on this machine. `None` when it is gone, is this
/// process, ran elsewhere (another place, system or computer), or cannot be told.
pub(crate) fn live_other(mark: &str) -> Option<u32> {
    let (Some(this), Some(other)) = (THIS.as_ref(), Mark::parse(mark)) else {
        return None;
    };
    // The same pid in this place is this process, or an earlier one that is gone.
    if this.place != other.place || other.pid == this.pid || system::gone(&other) {
        return None;
    }
    Some(other.pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark() -> Mark {
        Mark {
            place: (0..system::PLACE_PARTS).map(|n| format!("p{n}")).collect(),
            pid: 4242,
            started: 987_654,
        }
    }

    #[test]
    fn a_mark_reads_back_as_written() {
        assert_eq!(Mark::parse(&mark().to_text()), Some(mark()));
        let place = mark().place.join("/");
        let name = system::NAME;
        for text in [
            String::new(),
            format!("{name}/{place}/1"),
            format!("{name}/{place}/x/2"),
            format!("{name}/{place}/1/x"),
            format!("{name}/{place}/1/2/3"),
            format!("{name}/{place}//1/2"),
            format!("{name}{place}/1/2"),
            format!("elsewhere/{place}/1/2"),
        ] {
            assert_eq!(Mark::parse(&text), None, "{text}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_stat_line_with_an_odd_command_name_is_read_from_its_last_parenthesis() {
        let line = "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 \
                    1 0 987654 1000 100";
        assert_eq!(linux::parse_stat(line), Some((987_654, 'S')));
    }

    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    #[test]
    fn this_process_is_alive_and_a_pid_with_another_start_time_is_gone() {
        let this = THIS.clone().expect("the mark of this process");
        assert!(!is_gone(&this.to_text()), "this process itself");
        let earlier_self = Mark {
            started: this.started.saturating_sub(1),
            ..this.clone()
        };
        assert!(
            is_gone(&earlier_self.to_text()),
            "an earlier process with this pid"
        );
        // PID 1 is alive, but a mark with another start time is another process.
        #[cfg(target_os = "linux")]
        if let Some((started, _)) = linux::started(1) {
            let alive = Mark {
                pid: 1,
                started,
                ..this.clone()
            };
            assert!(!is_gone(&alive.to_text()));
            let reused = Mark {
                pid: 1,
                started: started + 1,
                ..this.clone()
            };
            assert!(is_gone(&reused.to_text()), "a reused pid");
        }
        let no_such_pid = Mark {
            pid: u32::MAX - 1,
            ..this.clone()
        };
        assert!(is_gone(&no_such_pid.to_text()), "no such process");
        // Another place (boot, namespace, user, computer) cannot be told: never gone.
        for part in 0..this.place.len() {
            let mut elsewhere = no_such_pid.clone();
            elsewhere.place[part].push('0');
            assert!(!is_gone(&elsewhere.to_text()), "{elsewhere:?}");
        }
    }

    /// A child process, alive, then killed: gone once killed, on every system with a
    /// mark (on Windows by `TerminateProcess`, which `Child::kill` calls).
    #[cfg(any(target_os = "linux", target_os = "macos", windows))]
    #[test]
    fn a_killed_child_is_gone_and_a_live_one_is_not() {
        let this = THIS.clone().expect("the mark of this process");
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "holder::tests::never_ends", "--ignored"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        let started = (0..200)
            .find_map(|_| {
                let found = system::started_at(pid);
                if found.is_none() {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                found
            })
            .expect("the child's start time");
        let mark = Mark {
            pid,
            started,
            ..this
        };
        assert!(!is_gone(&mark.to_text()), "a live child");
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(is_gone(&mark.to_text()), "a killed child");
    }

    /// The child of the test above: it lives until it is killed (bounded: 60 s).
    #[test]
    #[ignore = "started by a_killed_child_is_gone_and_a_live_one_is_not"]
    fn never_ends() {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}
