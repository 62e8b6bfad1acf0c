//! Poison-tolerant lock helpers.
//!
//! Every structure guarded in this crate is changed by single, complete operations (a
//! push, a retain, a committed or rolled-back transaction), so a panic while a guard
//! was held cannot leave it half-written: a poisoned lock is safe to keep using, and
//! refusing to would turn one panicking callback into a dead plugin.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
