//! The server's cost during a load run: its process group's CPU time and resident memory,
//! sampled twice a second on a thread of its own, so a `/proc` scan never delays a count.
//!
//! Owns: the sampling thread and the latest sample. Refuses: reading `/proc` (the process
//! module's `group_usage`) and turning samples into a second's figures (`run`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::process::{group_usage, GroupUsage};
use crate::sync::Lock;

/// The server's process group sampled twice a second on a thread of its own.
pub struct Sampler {
    latest: Arc<Mutex<Option<(Instant, GroupUsage)>>>,
    pub done: Arc<AtomicBool>,
}

impl Sampler {
    pub fn start(pgid: i32) -> Sampler {
        let latest = Arc::new(Mutex::new(group_usage(pgid).map(|u| (Instant::now(), u))));
        let done = Arc::new(AtomicBool::new(false));
        let (into, stop) = (latest.clone(), done.clone());
        let _ = std::thread::Builder::new().name("load-usage".into()).spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(500));
                let Some(usage) = group_usage(pgid) else { break };
                *into.locked() = Some((Instant::now(), usage));
            }
        });
        Sampler { latest, done }
    }

    pub fn latest(&self) -> Option<(Instant, GroupUsage)> {
        *self.latest.locked()
    }
}
