//! Windows: the mark's place is the computer's name (a file on a shared folder may be
//! held by another computer's processes); a process's start time is its creation
//! time (`GetProcessTimes`, 100 ns since 1601), which a later process that reuses the
//! pid cannot have. A holder is gone when no process has its pid, when the process
//! with its pid was created at another time, or when it has exited (a handle someone
//! keeps open keeps its object). One that cannot be opened (another user's, with
//! access refused) is not known to be gone; a suspended one is alive. kernel32's calls
//! are declared here, as in `conditions/system/windows.rs`.

use std::ffi::c_void;

use super::Mark;

pub(super) const NAME: &str = "windows";
/// The computer's name.
pub(super) const PLACE_PARTS: usize = 1;

const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
const SYNCHRONIZE: u32 = 0x0010_0000;
const ERROR_INVALID_PARAMETER: u32 = 87;
const WAIT_OBJECT_0: u32 = 0;

/// `FILETIME`.
#[repr(C)]
#[derive(Default, Clone, Copy)]
struct FileTime {
    low: u32,
    high: u32,
}

#[link(name = "kernel32")]
extern "system" {
    fn OpenProcess(access: u32, inherit: i32, pid: u32) -> *mut c_void;
    fn CloseHandle(handle: *mut c_void) -> i32;
    fn GetLastError() -> u32;
    fn GetProcessTimes(
        process: *mut c_void,
        creation: *mut FileTime,
        exit: *mut FileTime,
        kernel: *mut FileTime,
        user: *mut FileTime,
    ) -> i32;
    fn WaitForSingleObject(handle: *mut c_void, milliseconds: u32) -> u32;
    fn GetComputerNameW(buffer: *mut u16, size: *mut u32) -> i32;
}

pub(super) fn this() -> Option<Mark> {
    let pid = std::process::id();
    let started = match open(pid) {
        Opened::Process(process) => process.created()?,
        Opened::Missing | Opened::Refused => return None,
    };
    Some(Mark {
        place: vec![computer_name()?],
        pid,
        started,
    })
}

pub(super) fn gone(holder: &Mark) -> bool {
    match open(holder.pid) {
        Opened::Missing => true,
        Opened::Refused => false,
        Opened::Process(process) => match process.created() {
            Some(created) if created != holder.started => true,
            Some(_) => process.exited(),
            None => false,
        },
    }
}

/// The creation time of live process `pid`, as a mark holds it.
#[cfg(test)]
pub(super) fn started_at(pid: u32) -> Option<u64> {
    match open(pid) {
        Opened::Process(process) if !process.exited() => process.created(),
        _ => None,
    }
}

/// The computer's NetBIOS name, with any `/` replaced (a mark's parts hold none).
fn computer_name() -> Option<String> {
    let mut buffer = [0u16; 256];
    let mut size = buffer.len() as u32;
    // SAFETY: the buffer holds `size` UTF-16 units; on success `size` is the length
    // written, without the terminating zero.
    if unsafe { GetComputerNameW(buffer.as_mut_ptr(), &mut size) } == 0 {
        return None;
    }
    let name = String::from_utf16_lossy(buffer.get(..size as usize)?).replace('/', "_");
    (!name.is_empty()).then_some(name)
}

enum Opened {
    Process(Handle),
    /// No process has that pid.
    Missing,
    /// It may be there, but this process may not look at it.
    Refused,
}

fn open(pid: u32) -> Opened {
    // SAFETY: no pointers; the handle returned is closed by `Handle`'s drop.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, 0, pid) };
    if handle.is_null() {
        // SAFETY: reads this thread's last error, set by the failed call above.
        return match unsafe { GetLastError() } {
            ERROR_INVALID_PARAMETER => Opened::Missing,
            _ => Opened::Refused,
        };
    }
    Opened::Process(Handle(handle))
}

/// An open process handle, closed when dropped.
struct Handle(*mut c_void);

impl Handle {
    fn created(&self) -> Option<u64> {
        let mut times = [FileTime::default(); 4];
        let [creation, exit, kernel, user] = &mut times;
        // SAFETY: the handle is open with query rights; each pointer is to a FILETIME.
        let done = unsafe { GetProcessTimes(self.0, creation, exit, kernel, user) };
        (done != 0).then(|| u64::from(creation.high) << 32 | u64::from(creation.low))
    }

    fn exited(&self) -> bool {
        // SAFETY: the handle is open with SYNCHRONIZE; a zero wait only looks.
        unsafe { WaitForSingleObject(self.0, 0) == WAIT_OBJECT_0 }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle came from OpenProcess and is closed once, here.
        unsafe { CloseHandle(self.0) };
    }
}
