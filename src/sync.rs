//! One policy for poisoned locks, everywhere in Sonde: take the data and go on.
//!
//! A lock is poisoned when a thread panicked while holding it. Every critical section in Sonde
//! is one update of a table or a value (an insert, a remove, a replace) that leaves the data
//! whole at any point a panic can happen, so the data behind a poisoned lock is still true.
//! Going on keeps the rest of the app working after one task's bug: above all the shutdown
//! ladder, which must still stop every server, and the window, which must still show what the
//! core knows. Unwrapping instead would turn one panic into a panic in every later user of the
//! lock. The panic itself is not hidden: it is reported where it happened.
//!
//! Owns: [`Lock::locked`], [`ReadWrite::reading`] and [`ReadWrite::writing`], used instead of
//! `lock().unwrap()` and its kin. Refuses: anything else about locking.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A mutex locked under the policy of this module.
pub trait Lock<T: ?Sized> {
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T: ?Sized> Lock<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A read-write lock taken under the policy of this module.
pub trait ReadWrite<T: ?Sized> {
    fn reading(&self) -> RwLockReadGuard<'_, T>;
    fn writing(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T: ?Sized> ReadWrite<T> for RwLock<T> {
    fn reading(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn writing(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_still_gives_its_data() {
        let table = Arc::new(Mutex::new(vec![1]));
        let held = table.clone();
        let panicked = std::thread::spawn(move || {
            let mut rows = held.lock().unwrap();
            rows.push(2);
            panic!("a bug while the table is held");
        })
        .join();
        assert!(panicked.is_err() && table.is_poisoned());
        table.locked().push(3);
        assert_eq!(*table.locked(), [1, 2, 3]);

        let roots = Arc::new(RwLock::new(0));
        let held = roots.clone();
        let _ = std::thread::spawn(move || {
            let _guard = held.write().unwrap();
            panic!("a bug while writing");
        })
        .join();
        *roots.writing() += 1;
        assert_eq!(*roots.reading(), 1);
    }
}
