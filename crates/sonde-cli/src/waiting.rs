//! What an opening waits for, said on stderr once it has waited a second: a slow or silent
//! server is not mistaken for a hung Sonde.
//!
//! Owns: the stage the opening is in, the time it entered it, and the sentence for each stage
//! (once per stage). Refuses: the stages themselves (the hub reports them) and the time a
//! server takes to write its first byte ("starting: no output yet", said by the caller).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sonde_core::{duration_words, Lock, ServerConfig, Stage};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How long a stage lasts before it is said.
const AFTER: Duration = Duration::from_secs(1);

/// The stage being waited in, shared with the reporter.
#[derive(Default)]
pub struct Waiting {
    now: Mutex<Option<(Stage, Instant, bool)>>,
}

impl Waiting {
    /// The opening moved on to `stage`.
    pub fn entered(&self, stage: Stage) {
        let mut now = self.now.locked();
        // A server still silent reports `Starting` each second: that is not a new stage.
        if !matches!(stage, Stage::Starting(_)) && now.as_ref().map(|(s, ..)| *s) != Some(stage) {
            *now = Some((stage, Instant::now(), false));
        }
    }

    /// Starts the task that says what is waited for; abort it once the opening is over.
    pub fn say(self: &Arc<Self>, config: &ServerConfig) -> JoinHandle<()> {
        let (me, config) = (self.clone(), config.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            loop {
                tick.tick().await;
                let mut now = me.now.locked();
                if let Some((stage, since, said)) = now.as_mut() {
                    if !*said && since.elapsed() >= AFTER {
                        *said = true;
                        if let Some(words) = words(*stage, &config) {
                            noteln!("sonde: waiting for {words}");
                        }
                    }
                }
            }
        })
    }
}

/// What a stage waits for, in words, with its deadline.
fn words(stage: Stage, config: &ServerConfig) -> Option<String> {
    let timeout = duration_words(config.connect_timeout);
    Some(match stage {
        Stage::Probing => {
            format!("server/discover: the era probe, up to {}", duration_words(config.probe_timeout))
        }
        Stage::Initializing => format!("the answer to initialize (2025-11-25), up to {timeout}"),
        Stage::Discovering => format!("the answer to server/discover (2026-07-28), up to {timeout}"),
        Stage::Connecting => format!("the HTTP server to answer, up to {timeout}"),
        Stage::Authorizing => format!(
            "you to authorize Sonde in the browser, up to {} (the deadlines of the opening wait meanwhile)",
            duration_words(sonde_core::LOOPBACK_LIMIT)
        ),
        Stage::Spawning | Stage::Starting(_) => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sonde_core::SpawnSpec;

    #[test]
    fn each_stage_says_what_it_waits_for_and_its_deadline() {
        let config = ServerConfig::stdio(SpawnSpec::new("x", Vec::<String>::new()));
        assert_eq!(words(Stage::Probing, &config).unwrap(), "server/discover: the era probe, up to 3 s");
        assert_eq!(
            words(Stage::Initializing, &config).unwrap(),
            "the answer to initialize (2025-11-25), up to 30 s"
        );
        assert_eq!(words(Stage::Starting(2), &config), None);
    }
}
