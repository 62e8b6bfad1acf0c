//! Linux: the mark's place is the boot (`boot_id`), the pid and time namespaces and
//! the user; a process's start time is field 22 of `/proc/<pid>/stat`.

use super::Mark;

pub(super) const NAME: &str = "linux";
/// Boot, pid namespace, time namespace, user.
pub(super) const PLACE_PARTS: usize = 4;

pub(super) fn this() -> Option<Mark> {
    let pid = std::process::id();
    // A /proc of another pid namespace (a sandbox that did not mount its own) would
    // answer for other processes: then no mark, and leases only run out.
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
        place: vec![
            // The first group of the boot id is plenty to tell boots apart.
            boot.trim().split('-').next()?.to_owned(),
            namespace("pid")?,
            // Start times are read through the reader's time namespace (kernels
            // before 5.6 have none: `-`).
            namespace("time").unwrap_or_else(|| "-".to_owned()),
            // SAFETY: getuid has no preconditions and cannot fail. Another user's
            // processes may be hidden from this one's `/proc`: the user is part of
            // the place.
            unsafe { libc::getuid() }.to_string(),
        ],
        pid,
        started: started(pid)?.0,
    })
}

pub(super) fn gone(holder: &Mark) -> bool {
    match started(holder.pid) {
        // A zombie is gone, unless it is a thread-group leader that ended on its own
        // while other threads of the process run on.
        Some((started, 'Z' | 'X')) => started != holder.started || threads(holder.pid) <= 1,
        Some((started, _)) => started != holder.started,
        // No such process (or one whose stat cannot be read: then not sure).
        None => !std::path::Path::new(&format!("/proc/{}", holder.pid)).exists(),
    }
}

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
fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task")).map_or(0, Iterator::count)
}

/// The start time of live process `pid`, as a mark holds it.
#[cfg(test)]
pub(super) fn started_at(pid: u32) -> Option<u64> {
    started(pid).map(|(started, _)| started)
}
