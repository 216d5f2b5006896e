//! Reporting [`Stage::Authorizing`] while a person authorizes the opening connection in a
//! browser, and the stage before once they are done.
//!
//! Owns: that report. Refuses: the paused deadlines themselves (`connection::deadline`).

use tokio::sync::watch;

use super::Stage;

/// Reports `Stage::Authorizing` whenever an authorization starts, and `resume` when it ends.
/// Never returns: the caller races it against the opening.
pub async fn report_authorizing(
    mut authorizing: watch::Receiver<bool>,
    conn: u64,
    resume: Stage,
    report: &(dyn Fn(u64, Stage) + Send + Sync),
) {
    while authorizing.changed().await.is_ok() {
        let now = *authorizing.borrow_and_update();
        report(conn, if now { Stage::Authorizing } else { resume });
    }
    std::future::pending().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    use crate::sync::Lock;

    #[tokio::test]
    async fn authorizing_is_reported_while_it_lasts_then_the_stage_before() {
        let (tx, rx) = watch::channel(false);
        let seen = Mutex::new(Vec::new());
        let report = |conn: u64, stage: Stage| seen.locked().push((conn, stage));
        // Each flip waits until it was reported: the two run in one task, so yielding hands the
        // turn to the reporter.
        let reported = |n: usize| seen.locked().len() >= n;
        let flips = async {
            tx.send_replace(true);
            while !reported(1) {
                tokio::task::yield_now().await;
            }
            tx.send_replace(false);
            while !reported(2) {
                tokio::task::yield_now().await;
            }
        };
        let both = async {
            tokio::select! {
                () = report_authorizing(rx, 4, Stage::Probing, &report) => unreachable!("it never returns"),
                () = flips => {}
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(5), both)
            .await
            .expect("both flips reported within 5 s");
        assert_eq!(*seen.locked(), [(4, Stage::Authorizing), (4, Stage::Probing)]);
    }
}
