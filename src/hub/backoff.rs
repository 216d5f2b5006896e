//! When a supervised server is started again, and when Sonde stops trying.
//!
//! Owns: the schedule of one lineage of restarts (exponential waits, the reset after a healthy
//! run, the crash-loop verdict), as arithmetic on instants it is given.
//! Refuses: waiting and starting anything (the hub's lineage does both) and reading the clock.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use crate::server_config::RestartPolicy;

/// What follows an exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Start attempt `attempt` (counted from 1) after `after`.
    Wait { attempt: u32, after: Duration },
    /// It ended `exits` times within the window: stop trying.
    GiveUp { exits: u32 },
}

/// The restart schedule of one lineage.
#[derive(Debug)]
pub struct Backoff {
    policy: RestartPolicy,
    /// Restarts since the last healthy run.
    attempt: u32,
    /// When it ended, within the window.
    exits: VecDeque<Instant>,
}

impl Backoff {
    pub fn new(policy: RestartPolicy) -> Backoff {
        Backoff { policy, attempt: 0, exits: VecDeque::new() }
    }

    /// The server ended at `now` after staying up for `ran` (zero when it never opened).
    pub fn on_exit(&mut self, now: Instant, ran: Duration) -> Next {
        let p = self.policy;
        if ran >= p.healthy {
            self.attempt = 0;
        }
        self.exits.push_back(now);
        while self.exits.front().is_some_and(|t| now.duration_since(*t) > p.window) {
            self.exits.pop_front();
        }
        let exits = u32::try_from(self.exits.len()).unwrap_or(u32::MAX);
        if exits >= p.max_exits {
            return Next::GiveUp { exits };
        }
        let after = p.first.saturating_mul(1u32 << self.attempt.min(16)).min(p.cap);
        self.attempt += 1;
        Next::Wait { attempt: self.attempt, after }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    /// A paused clock: each step advances it by exactly what the schedule said to wait.
    #[tokio::test(start_paused = true)]
    async fn waits_double_to_the_cap_and_five_quick_exits_are_a_crash_loop() {
        let mut b = Backoff::new(RestartPolicy::default());
        let mut waits = Vec::new();
        loop {
            match b.on_exit(Instant::now(), Duration::ZERO) {
                Next::Wait { attempt, after } => {
                    waits.push((attempt, after));
                    tokio::time::advance(after).await;
                }
                Next::GiveUp { exits } => {
                    assert_eq!(exits, 5);
                    break;
                }
            }
        }
        assert_eq!(waits, [(1, S(1)), (2, S(2)), (3, S(4)), (4, S(8))]);
    }

    #[tokio::test(start_paused = true)]
    async fn slow_exits_never_loop_the_wait_is_capped_and_a_healthy_run_resets_it() {
        let mut b = Backoff::new(RestartPolicy::default());
        let mut last = Duration::ZERO;
        // Exits 40 s apart: never five within two minutes, so it keeps trying, up to the cap.
        for _ in 0..12 {
            match b.on_exit(Instant::now(), S(40)) {
                Next::Wait { after, .. } => last = after,
                Next::GiveUp { .. } => panic!("exits 40 s apart are not a crash loop"),
            }
            tokio::time::advance(S(40)).await;
        }
        assert_eq!(last, S(60), "the wait stops growing at the cap");
        // A run of a minute or more is health: the next wait is the first again.
        assert_eq!(b.on_exit(Instant::now(), S(60)), Next::Wait { attempt: 1, after: S(1) });
    }
}
