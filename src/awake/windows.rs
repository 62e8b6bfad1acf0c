//! Windows: a power request (`PowerCreateRequest`, `PowerSetRequest` with
//! `PowerRequestSystemRequired`, kernel32 since Windows 7), declared here rather than
//! through a crate, for four calls. The reason is the request's simple string, shown
//! by `powercfg /requests`; the handle closes with the process.
//!
//! Where the system lacks power requests (Wine answers `PowerCreateRequest` with
//! `ERROR_CALL_NOT_IMPLEMENTED`), `SetThreadExecutionState(ES_CONTINUOUS |
//! ES_SYSTEM_REQUIRED)` stands in, on the keep-awake thread, which takes and lets go
//! of every request (`awake::keep`). Under Wine that call is a stub: what CI checks
//! there is that a request is made and let go without an error.

use std::ffi::c_void;

use super::SystemInhibitor;

/// `REASON_CONTEXT` with its simple string: the union is as wide as its larger
/// member (a module handle, two counts and a pointer): the string in the handle's
/// place, then room for the rest (24 bytes on 64-bit, 16 on 32-bit).
#[repr(C)]
struct ReasonContext {
    version: u32,
    flags: u32,
    simple_reason: *const u16,
    _counts: [u32; 2],
    _strings: *const c_void,
}

/// `POWER_REQUEST_CONTEXT_VERSION`.
const CONTEXT_VERSION: u32 = 0;
/// `POWER_REQUEST_CONTEXT_SIMPLE_STRING`.
const SIMPLE_STRING: u32 = 0x1;
/// `PowerRequestSystemRequired`.
const SYSTEM_REQUIRED: i32 = 1;
/// `ERROR_CALL_NOT_IMPLEMENTED`.
const NOT_IMPLEMENTED: u32 = 120;
/// `ES_CONTINUOUS`, `ES_SYSTEM_REQUIRED`.
const ES_CONTINUOUS: u32 = 0x8000_0000;
const ES_SYSTEM_REQUIRED: u32 = 0x0000_0001;
/// `INVALID_HANDLE_VALUE`.
const INVALID_HANDLE: isize = -1;

type Handle = *mut c_void;

#[link(name = "kernel32")]
extern "system" {
    fn PowerCreateRequest(context: *const ReasonContext) -> Handle;
    fn PowerSetRequest(request: Handle, kind: i32) -> i32;
    fn PowerClearRequest(request: Handle, kind: i32) -> i32;
    // The same declarations as `holder::windows`'s (Rust requires one signature).
    fn CloseHandle(handle: Handle) -> i32;
    fn GetLastError() -> u32;
    fn SetThreadExecutionState(flags: u32) -> u32;
}

/// A power request set; cleared and closed when dropped.
struct Request(Handle);

// SAFETY: a kernel handle is a process-wide value that any thread may use or close;
// this one is closed once, by whoever drops it.
unsafe impl Send for Request {}

impl Drop for Request {
    fn drop(&mut self) {
        // SAFETY: a handle this process created and set, closed once, here.
        unsafe {
            PowerClearRequest(self.0, SYSTEM_REQUIRED);
            CloseHandle(self.0);
        }
    }
}

/// The thread's execution state set; back to none when dropped (on the keep-awake
/// thread, which set it).
struct ThreadState;

impl Drop for ThreadState {
    fn drop(&mut self) {
        // SAFETY: a flag word, nothing else.
        unsafe {
            SetThreadExecutionState(ES_CONTINUOUS);
        }
    }
}

pub(super) fn inhibit(inhibitor: &SystemInhibitor, why: &str) -> Result<Box<dyn Send>, String> {
    let text = format!("{}: {why}", inhibitor.asker());
    let wide: Vec<u16> = text.encode_utf16().chain(std::iter::once(0)).collect();
    let context = ReasonContext {
        version: CONTEXT_VERSION,
        flags: SIMPLE_STRING,
        simple_reason: wide.as_ptr(),
        _counts: [0; 2],
        _strings: std::ptr::null(),
    };
    // SAFETY: the context and its string outlive the call, which copies the string.
    let handle = unsafe { PowerCreateRequest(&context) };
    if handle as isize == INVALID_HANDLE || handle.is_null() {
        // SAFETY: no arguments.
        let code = unsafe { GetLastError() };
        if code == NOT_IMPLEMENTED {
            // SAFETY: a flag word, nothing else.
            if unsafe { SetThreadExecutionState(ES_CONTINUOUS | ES_SYSTEM_REQUIRED) } != 0 {
                return Ok(Box::new(ThreadState));
            }
        }
        return Err(format!("PowerCreateRequest failed (error {code})"));
    }
    let request = Request(handle);
    // SAFETY: a valid request handle of this process.
    if unsafe { PowerSetRequest(request.0, SYSTEM_REQUIRED) } == 0 {
        // SAFETY: no arguments.
        let code = unsafe { GetLastError() };
        return Err(format!("PowerSetRequest failed (error {code})"));
    }
    Ok(Box::new(request))
}
