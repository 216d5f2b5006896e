//! The deadlines of an opening (the connect timeout, the era probe's), which bound a server and
//! not a person: while the connection waits for someone to authorize in a browser the clock
//! stops, and it starts again, whole, when the authorization ends.
//!
//! Owns: that wait. Refuses: the authorization's own limit (the loopback listener's).

use std::future::Future;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// `work`'s output, or `Err(())` when `limit` passed with no authorization running.
pub async fn within<F: Future>(
    limit: Duration,
    mut authorizing: watch::Receiver<bool>,
    work: F,
) -> Result<F::Output, ()> {
    tokio::pin!(work);
    let mut deadline = Instant::now() + limit;
    let mut watching = true;
    loop {
        let paused = *authorizing.borrow();
        tokio::select! {
            out = &mut work => return Ok(out),
            () = tokio::time::sleep_until(deadline), if !paused => return Err(()),
            changed = authorizing.changed(), if watching => match changed {
                Ok(()) if !*authorizing.borrow() => deadline = Instant::now() + limit,
                Ok(()) => {}
                Err(_) => watching = false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_clock_stops_while_authorizing_and_starts_again_after() {
        let (tx, rx) = watch::channel(false);
        let limit = Duration::from_secs(30);
        let work = async {
            tokio::time::sleep(Duration::from_secs(20)).await;
            tx.send_replace(true);
            // Five minutes in the browser.
            tokio::time::sleep(Duration::from_secs(300)).await;
            tx.send_replace(false);
            tokio::time::sleep(Duration::from_secs(25)).await;
            "opened"
        };
        assert_eq!(within(limit, rx, work).await, Ok("opened"));

        let (_tx, rx) = watch::channel(false);
        assert_eq!(within(limit, rx, tokio::time::sleep(Duration::from_secs(31))).await, Err(()));
        // A connection that never authorizes (stdio: the sender is gone) times out as before.
        let rx = watch::channel(false).1;
        assert_eq!(within(limit, rx, tokio::time::sleep(Duration::from_secs(31))).await, Err(()));
    }
}
