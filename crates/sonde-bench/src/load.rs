//! A machine made busy on purpose: a spinning thread per CPU, at the ordinary priority a build
//! beside the bench would have, for as long as a [`Burner`] lives. The request-overhead figure is
//! taken idle and loaded because the two differ in kind: an idle CPU sleeps and takes time to wake
//! for each hand-off between threads, while a busy one is awake but shared.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Spinning threads, one per CPU, stopped and joined when dropped.
pub struct Burner {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl Burner {
    pub fn start() -> Burner {
        let stop = Arc::new(AtomicBool::new(false));
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..cpus)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        Burner { stop, threads }
    }
}

impl Drop for Burner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
