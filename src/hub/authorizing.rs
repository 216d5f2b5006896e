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

    #[tokio::test]
    async fn authorizing_is_reported_while_it_lasts_then_the_stage_before() {
        let (tx, rx) = watch::channel(false);
        let seen = Mutex::new(Vec::new());
        let report = |conn: u64, stage: Stage| seen.lock().unwrap().push((conn, stage));
        let flips = async {
            tx.send_replace(true);
            tokio::task::yield_now().await;
            tx.send_replace(false);
            tokio::task::yield_now().await;
        };
        tokio::select! {
            () = report_authorizing(rx, 4, Stage::Probing, &report) => unreachable!("it never returns"),
            () = async { flips.await; tokio::task::yield_now().await } => {}
        }
        assert_eq!(*seen.lock().unwrap(), [(4, Stage::Authorizing), (4, Stage::Probing)]);
    }
}
