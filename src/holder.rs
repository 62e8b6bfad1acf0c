//! Which process holds a lease, and whether it is gone.
//!
//! Every claim writes the claiming process's mark beside the lease
//! (`jobs.lease_process`, migration 15): on Linux the boot (`boot_id`), the pid
//! namespace, the pid and the process's start time. A claimer that finds a running job
//! whose holder ran on this boot, in this pid namespace, and whose pid is no longer
//! there (or is a zombie, or is another process now: its start time differs, so a
//! reused pid is never taken for the holder) reclaims the job at once instead of
//! waiting for its lease to run out: what a restart after a `kill -9` or a crash needs,
//! so that a capped kind's slots come back within a sweep.
//!
//! Compared with the lease, which is the rule for every holder, this is only a
//! shortcut for the one case that can be told for sure. A holder that is alive but
//! frozen (SIGSTOP, a debugger), one in another pid namespace (a container or a
//! sandbox sharing the file) or on an earlier boot, and every holder on a system where
//! the mark cannot be read (macOS and Windows here: not written for them yet) keeps its
//! lease until it runs out, as before.

use std::sync::LazyLock;

/// This process's mark, when it can be read.
static THIS: LazyLock<Option<Mark>> = LazyLock::new(Mark::this);
/// The same as stored.
static THIS_TEXT: LazyLock<Option<String>> = LazyLock::new(|| THIS.as_ref().map(Mark::to_text));

/// A process as a lease names it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mark {
    boot: String,
    namespace: String,
    pid: u32,
    started: u64,
}

impl Mark {
    #[cfg(target_os = "linux")]
    fn this() -> Option<Mark> {
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let namespace = std::fs::read_link("/proc/self/ns/pid").ok()?;
        let pid = std::process::id();
        Some(Mark {
            // The first group of the boot id is plenty to tell boots apart.
            boot: boot.trim().split('-').next()?.to_owned(),
            namespace: namespace.to_str()?.trim_start_matches("pid:").to_owned(),
            pid,
            started: linux::started(pid)?.0,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn this() -> Option<Mark> {
        None
    }

    /// The form stored in `jobs.lease_process`: `linux/<boot>/<namespace>/<pid>/<start>`.
    fn to_text(&self) -> String {
        format!(
            "linux/{}/{}/{}/{}",
            self.boot, self.namespace, self.pid, self.started
        )
    }

    fn parse(text: &str) -> Option<Mark> {
        let mut parts = text.strip_prefix("linux/")?.split('/');
        let mark = Mark {
            boot: parts.next()?.to_owned(),
            namespace: parts.next()?.to_owned(),
            pid: parts.next()?.parse().ok()?,
            started: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(mark)
    }
}

/// This process's mark as a claim stores it; `None` where it cannot be read (the
/// leases this process takes then only end by running out).
pub(crate) fn this_process() -> Option<&'static str> {
    THIS_TEXT.as_deref()
}

/// Whether the process a lease names is surely gone: it ran on this boot, in this pid
/// namespace, and no live process has its pid and start time. `false` whenever that
/// cannot be told (another system, namespace or boot; a mark not of ours; `/proc`
/// unreadable), and for this process itself.
pub(crate) fn is_gone(mark: &str) -> bool {
    let (Some(this), Some(holder)) = (THIS.as_ref(), Mark::parse(mark)) else {
        return false;
    };
    if holder.boot != this.boot || holder.namespace != this.namespace || holder.pid == this.pid {
        return false;
    }
    gone(&holder)
}

#[cfg(target_os = "linux")]
fn gone(holder: &Mark) -> bool {
    match linux::started(holder.pid) {
        Some((started, state)) => started != holder.started || matches!(state, 'Z' | 'X'),
        // No such process (or one whose stat cannot be read: then not sure).
        None => !std::path::Path::new(&format!("/proc/{}", holder.pid)).exists(),
    }
}

#[cfg(not(target_os = "linux"))]
fn gone(_holder: &Mark) -> bool {
    false
}

#[cfg(target_os = "linux")]
mod linux {
    /// The start time of process `pid` (clock ticks after boot) and its state letter,
    /// from `/proc/<pid>/stat`.
    pub(super) fn started(pid: u32) -> Option<(u64, char)> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        parse_stat(&stat)
    }

    /// Fields 3 (state) and 22 (start time) of a stat line. The command name (field 2,
    /// in parentheses) may hold spaces and parentheses: the fields after it are read
    /// from its last `)`.
    pub(super) fn parse_stat(stat: &str) -> Option<(u64, char)> {
        let rest = &stat[stat.rfind(')')? + 1..];
        let mut fields = rest.split_ascii_whitespace();
        let state = fields.next()?.chars().next()?;
        // State is field 3; start time is field 22, 19 further on.
        let started = fields.nth(18)?.parse().ok()?;
        Some((started, state))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_reads_back_as_written() {
        let mark = Mark {
            boot: "3f2a9c1e".to_owned(),
            namespace: "[4026531836]".to_owned(),
            pid: 4242,
            started: 987_654,
        };
        assert_eq!(Mark::parse(&mark.to_text()), Some(mark));
        for text in [
            "",
            "linux/a/b/c/d",
            "linux/a/b/1",
            "linux/a/b/1/2/3",
            "mac/a/b/1/2",
        ] {
            assert_eq!(Mark::parse(text), None, "{text}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_stat_line_with_an_odd_command_name_is_read_from_its_last_parenthesis() {
        let line = "4242 (we (ird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 \
                    1 0 987654 1000 100";
        assert_eq!(linux::parse_stat(line), Some((987_654, 'S')));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_is_alive_and_a_pid_with_another_start_time_is_gone() {
        let this = THIS.clone().expect("the mark of this process");
        assert!(!is_gone(&this.to_text()), "this process itself");
        // PID 1 is alive, but a mark with another start time is another process.
        let init = linux::started(1).map(|(started, _)| started);
        if let Some(started) = init {
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
        // Another boot or namespace cannot be told: never gone.
        let other_boot = Mark {
            boot: "00000000".to_owned(),
            pid: u32::MAX - 1,
            ..this.clone()
        };
        assert!(!is_gone(&other_boot.to_text()));
        let no_such_pid = Mark {
            pid: u32::MAX - 1,
            ..this
        };
        assert!(is_gone(&no_such_pid.to_text()), "no such process");
    }
}
