//! macOS: an IOKit power assertion of type `PreventUserIdleSystemSleep`
//! (`IOPMAssertionCreateWithName`, named with the reason; `pmset -g assertions`
//! lists it), released by `IOPMAssertionRelease` or when the process ends. Single C
//! functions of the system frameworks, declared here rather than through a crate.
//!
//! Written against the documented ABI; this repository's CI compiles and lints it
//! (scripts/test-platforms.sh) but cannot run it: apps run it on macOS.

use std::ffi::{c_char, c_void, CString};

use super::SystemInhibitor;

type CFStringRef = *const c_void;

/// `kCFStringEncodingUTF8`.
const UTF8: u32 = 0x0800_0100;
/// `kIOPMAssertionLevelOn`.
const LEVEL_ON: u32 = 255;
/// `kIOReturnSuccess`.
const SUCCESS: i32 = 0;

#[link(name = "CoreFoundation", kind = "framework")]
extern "C" {
    fn CFStringCreateWithCString(
        allocator: *const c_void,
        text: *const c_char,
        encoding: u32,
    ) -> CFStringRef;
    fn CFRelease(object: *const c_void);
}

#[link(name = "IOKit", kind = "framework")]
extern "C" {
    fn IOPMAssertionCreateWithName(
        kind: CFStringRef,
        level: u32,
        name: CFStringRef,
        id: *mut u32,
    ) -> i32;
    fn IOPMAssertionRelease(id: u32) -> i32;
}

/// An assertion held; released when dropped.
struct Assertion(u32);

impl Drop for Assertion {
    fn drop(&mut self) {
        // SAFETY: an assertion this process created, released once, here.
        unsafe {
            IOPMAssertionRelease(self.0);
        }
    }
}

/// A CoreFoundation string, released when dropped.
struct CfString(CFStringRef);

impl CfString {
    fn new(text: &str) -> Result<Self, String> {
        let text = CString::new(text.replace('\0', " ")).map_err(|error| error.to_string())?;
        // SAFETY: a NUL-terminated UTF-8 string the call copies.
        let string = unsafe { CFStringCreateWithCString(std::ptr::null(), text.as_ptr(), UTF8) };
        if string.is_null() {
            return Err("CFStringCreateWithCString failed".into());
        }
        Ok(CfString(string))
    }
}

impl Drop for CfString {
    fn drop(&mut self) {
        // SAFETY: a string this module created, released once, here.
        unsafe { CFRelease(self.0) }
    }
}

pub(super) fn inhibit(inhibitor: &SystemInhibitor, why: &str) -> Result<Box<dyn Send>, String> {
    let kind = CfString::new("PreventUserIdleSystemSleep")?;
    // Apple documents names of up to 128 characters.
    let name: String = format!("{}: {why}", inhibitor.asker())
        .chars()
        .take(128)
        .collect();
    let name = CfString::new(&name)?;
    let mut id = 0u32;
    // SAFETY: two valid strings the call retains as it needs; `id` is written.
    let code = unsafe { IOPMAssertionCreateWithName(kind.0, LEVEL_ON, name.0, &mut id) };
    if code != SUCCESS {
        return Err(format!(
            "IOPMAssertionCreateWithName failed (IOReturn {code:#x})"
        ));
    }
    Ok(Box::new(Assertion(id)))
}
