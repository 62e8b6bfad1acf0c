//! macOS: the mark's place is the boot (`kern.boottime`, in seconds) and the user; a
//! process's start time is `proc_pidinfo`'s (`PROC_PIDTBSDINFO`, in microseconds). A
//! holder is gone when no process has its pid (`ESRCH`), when the process with its
//! pid started at another time, or when it is a zombie. One that cannot be read
//! (another user's: `EPERM`) is not known to be gone; a stopped one is alive.
//! Compiled in CI, not run there (no macOS machine can be had here).

use super::Mark;

pub(super) const NAME: &str = "macos";
/// Boot time, user.
pub(super) const PLACE_PARTS: usize = 2;

/// `SZOMB` in `proc_bsdinfo.pbi_status`.
const ZOMBIE: u32 = 5;

pub(super) fn this() -> Option<Mark> {
    let pid = std::process::id();
    let (started, _) = info(pid).ok()?;
    Some(Mark {
        // SAFETY: getuid has no preconditions and cannot fail.
        place: vec![
            boot_time()?.to_string(),
            unsafe { libc::getuid() }.to_string(),
        ],
        pid,
        started,
    })
}

pub(super) fn gone(holder: &Mark) -> bool {
    match info(holder.pid) {
        Ok((started, status)) => started != holder.started || status == ZOMBIE,
        Err(error) => error == libc::ESRCH,
    }
}

/// The start time of live process `pid`, as a mark holds it.
#[cfg(test)]
pub(super) fn started_at(pid: u32) -> Option<u64> {
    info(pid)
        .ok()
        .filter(|(_, status)| *status != ZOMBIE)
        .map(|(started, _)| started)
}

/// Process `pid`'s start time (µs since the epoch) and status, or the errno.
fn info(pid: u32) -> Result<(u64, u32), i32> {
    let pid = i32::try_from(pid).map_err(|_| libc::ESRCH)?;
    // SAFETY: proc_bsdinfo is plain data; all zeros is a valid value.
    let mut info: libc::proc_bsdinfo = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: the buffer is a proc_bsdinfo of `size` bytes, what PROC_PIDTBSDINFO
    // writes.
    let written = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            std::ptr::addr_of_mut!(info).cast(),
            size,
        )
    };
    if written != size {
        return Err(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EPERM));
    }
    let started = info.pbi_start_tvsec * 1_000_000 + info.pbi_start_tvusec;
    Ok((started, info.pbi_status))
}

/// When the machine booted, in seconds since the epoch.
fn boot_time() -> Option<i64> {
    let mut boot = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    let mut size = std::mem::size_of::<libc::timeval>();
    // SAFETY: the name is a C string; the buffer is a timeval of `size` bytes.
    let done = unsafe {
        libc::sysctlbyname(
            c"kern.boottime".as_ptr(),
            std::ptr::addr_of_mut!(boot).cast(),
            &mut size,
            std::ptr::null_mut(),
            0,
        )
    };
    (done == 0).then_some(boot.tv_sec)
}
