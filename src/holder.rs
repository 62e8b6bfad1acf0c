//! Which process holds a lease, and whether it is gone.
//!
//! Every claim writes the claiming process's mark beside the lease
//! (`jobs.lease_process`, migration 15): on Linux the boot (`boot_id`), the pid and
//! time namespaces, the user, the pid and the process's start time. A claimer that
//! finds a running job whose holder ran on this boot, in these namespaces, as this
//! user, and whose pid is no longer there (or is a zombie, or is another process now:
//! its start time differs, so a reused pid is never taken for the holder) reclaims the
//! job at once instead of waiting for its lease to run out: what a restart after a
//! `kill -9` or a crash needs, so that a capped kind's slots come back within a sweep.
//!
//! Compared with the lease, which is the rule for every holder, this is only a
//! shortcut for the one case that can be told for sure. A holder that is alive but
//! frozen (SIGSTOP, a debugger), one in another pid or time namespace (a container, or
//! a sandbox such as Flatpak's, which gives every launch a namespace of its own), of
//! another user or an earlier boot, and every holder on a system where the mark
//! cannot be read (macOS and Windows here: not written for them yet) keeps its lease
//! until it runs out, as before.

use std::sync::LazyLock;

/// This process's mark, when it can be read.
static THIS: LazyLock<Option<Mark>> = LazyLock::new(Mark::this);
/// The same as stored.
static THIS_TEXT: LazyLock<Option<String>> = LazyLock::new(|| THIS.as_ref().map(Mark::to_text));

/// A process as a lease names it: where it ran (the boot, its pid and time
/// namespaces, its user), which process it was (pid, start time).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mark {
    boot: String,
    pid_namespace: String,
    time_namespace: String,
    uid: u32,
    pid: u32,
    started: u64,
}

impl Mark {
    #[cfg(target_os = "linux")]
    fn this() -> Option<Mark> {
        let pid = std::process::id();
        // A /proc of another pid namespace (a sandbox that did not mount its own)
        // would answer for other processes: then no mark, and leases only run out.
        let proc_self = std::fs::read_link("/proc/self").ok()?;
        if proc_self.to_str()? != pid.to_string() {
            return None;
        }
        let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let namespace = |name: &str| -> Option<String> {
            let link = std::fs::read_link(format!("/proc/self/ns/{name}")).ok()?;
            let text = link.to_str()?;
            Some(text[text.find('[')? + 1..text.rfind(']')?].to_owned())
        };
        Some(Mark {
            // The first group of the boot id is plenty to tell boots apart.
            boot: boot.trim().split('-').next()?.to_owned(),
            pid_namespace: namespace("pid")?,
            // Start times are read through the reader's time namespace (kernels
            // before 5.6 have none: `-`).
            time_namespace: namespace("time").unwrap_or_else(|| "-".to_owned()),
            // SAFETY: getuid has no preconditions and cannot fail.
            uid: unsafe { libc::getuid() },
            pid,
            started: linux::started(pid)?.0,
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn this() -> Option<Mark> {
        None
    }

    /// The form stored in `jobs.lease_process`:
    /// `linux/<boot>/<pid ns>/<time ns>/<uid>/<pid>/<start>`.
    fn to_text(&self) -> String {
        format!(
            "linux/{}/{}/{}/{}/{}/{}",
            self.boot, self.pid_namespace, self.time_namespace, self.uid, self.pid, self.started
        )
    }

    fn parse(text: &str) -> Option<Mark> {
        let mut parts = text.strip_prefix("linux/")?.split('/');
        let mark = Mark {
            boot: parts.next()?.to_owned(),
            pid_namespace: parts.next()?.to_owned(),
            time_namespace: parts.next()?.to_owned(),
            uid: parts.next()?.parse().ok()?,
            pid: parts.next()?.parse().ok()?,
            started: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(mark)
    }

    /// Whether `other` ran where this one runs: the same boot, namespaces and user
    /// (another user's processes may be hidden from this one's `/proc`).
    fn same_place(&self, other: &Mark) -> bool {
        self.boot == other.boot
            && self.pid_namespace == other.pid_namespace
            && self.time_namespace == other.time_namespace
            && self.uid == other.uid
    }
}

/// This process's mark as a claim stores it; `None` where it cannot be read (the
/// leases this process takes then only end by running out).
pub(crate) fn this_process() -> Option<&'static str> {
    THIS_TEXT.as_deref()
}

/// Whether the process a lease names is surely gone: it ran on this boot, in these
/// namespaces, as this user, and no live process has its pid and start time. `false`
/// whenever that cannot be told (another system, namespace, user or boot; a mark not
/// of ours; `/proc` unreadable), and for this process itself. A holder with this
/// process's pid but another start time was an earlier process, and is gone.
pub(crate) fn is_gone(mark: &str) -> bool {
    let (Some(this), Some(holder)) = (THIS.as_ref(), Mark::parse(mark)) else {
        return false;
    };
    if !this.same_place(&holder) {
        return false;
    }
    if holder.pid == this.pid {
        return holder.started != this.started;
    }
    gone(&holder)
}

#[cfg(target_os = "linux")]
fn gone(holder: &Mark) -> bool {
    match linux::started(holder.pid) {
        // A zombie is gone, unless it is a thread-group leader that ended on its own
        // while other threads of the process run on.
        Some((started, 'Z' | 'X')) => started != holder.started || linux::threads(holder.pid) <= 1,
        Some((started, _)) => started != holder.started,
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

    /// How many threads process `pid` has left (0 when it cannot be read).
    pub(super) fn threads(pid: u32) -> usize {
        std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, Iterator::count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark() -> Mark {
        Mark {
            boot: "3f2a9c1e".to_owned(),
            pid_namespace: "4026531836".to_owned(),
            time_namespace: "4026531834".to_owned(),
            uid: 1000,
            pid: 4242,
            started: 987_654,
        }
    }

    #[test]
    fn a_mark_reads_back_as_written() {
        assert_eq!(Mark::parse(&mark().to_text()), Some(mark()));
        for text in [
            "",
            "linux/a/b/c/d",
            "linux/a/b/c/1/2",
            "linux/a/b/c/x/1/2",
            "linux/a/b/c/1/2/3/4",
            "mac/a/b/c/1/2/3",
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
        let earlier_self = Mark {
            started: this.started.saturating_sub(1),
            ..this.clone()
        };
        assert!(
            is_gone(&earlier_self.to_text()),
            "an earlier process with this pid"
        );
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
        let no_such_pid = Mark {
            pid: u32::MAX - 1,
            ..this.clone()
        };
        assert!(is_gone(&no_such_pid.to_text()), "no such process");
        // Another boot, namespace or user cannot be told: never gone.
        for elsewhere in [
            Mark {
                boot: "00000000".to_owned(),
                ..no_such_pid.clone()
            },
            Mark {
                pid_namespace: "1".to_owned(),
                ..no_such_pid.clone()
            },
            Mark {
                time_namespace: "1".to_owned(),
                ..no_such_pid.clone()
            },
            Mark {
                uid: this.uid.wrapping_add(1),
                ..no_such_pid.clone()
            },
        ] {
            assert!(!is_gone(&elsewhere.to_text()), "{elsewhere:?}");
        }
    }
}
